"""Core kernels: making, casting, copying and reshaping arrays of one backend."""

from abc import ABC, abstractmethod


class CoreKernels(ABC):
    """Primitive kernels every op and the Tensor itself build on.

    Attributes: ``name`` (``"cpu"``, ``"cuda"``), ``ordinal`` (the device index, 0 on the
    CPU), ``xp`` (the array module), ``ndarray`` (the array type, to recognise results
    that need wrapping).
    """

    @abstractmethod
    def asarray(self, data, dtype=None, copy=None):
        """An array from nested Python data, a NumPy array or another array (``np.asarray``)."""

    @abstractmethod
    def to_numpy(self, a, non_blocking=False):
        """A NumPy array holding ``a``'s values (zero-copy on the CPU). A device backend
        given ``non_blocking`` copies into page-locked memory asynchronously, ordered on
        the current stream."""

    @abstractmethod
    def from_backend(self, a, other, non_blocking=False):
        """An array of this backend with the values of ``a``, an array of backend
        ``other`` (device to device where both allow, else through host memory);
        ``non_blocking`` makes a copy between page-locked host memory and a device
        asynchronous on the current stream."""

    @abstractmethod
    def astype(self, a, npdtype):
        """``a`` cast to ``npdtype`` (a copy; C-style wrap for out-of-range integers)."""

    @abstractmethod
    def copy(self, a):
        """A fresh C-contiguous copy of ``a``."""

    @abstractmethod
    def empty(self, shape, npdtype):
        """An uninitialised array."""

    @abstractmethod
    def full(self, shape, value, npdtype):
        """An array of ``shape`` filled with ``value``."""

    @abstractmethod
    def ones(self, shape, npdtype):
        """An array of ones (the seed of a backward)."""

    @abstractmethod
    def broadcast_copy(self, a, shape):
        """A new writable array of ``shape`` holding ``a`` broadcast (a materialised expand)."""

    @abstractmethod
    def ones_like(self, a):
        """Ones of ``a``'s shape, dtype and memory layout."""

    @abstractmethod
    def zeros_like(self, a):
        """Zeros of ``a``'s shape and dtype."""

    @abstractmethod
    def assign(self, dst, src):
        """Write ``src`` (broadcast) into ``dst`` in place: ``dst[...] = src``."""

    @abstractmethod
    def add_into(self, dst, src):
        """Add ``src`` (broadcast) into ``dst`` in place: ``dst += src`` (gradient
        accumulation into an existing ``.grad``)."""

    @abstractmethod
    def sum_to(self, a, shape):
        r"""Sum ``a`` over the axes broadcasting added or stretched so it has ``shape``.

        The adjoint of broadcasting: :math:`\mathrm{sum\_to}(g)_i = \sum_{j \mapsto i} g_j`.
        """

    @abstractmethod
    def broadcast_to(self, a, shape):
        """A read-only broadcast view of ``a`` with ``shape``."""

    @abstractmethod
    def expand(self, a, shape):
        """A writable view of ``a`` broadcast to ``shape`` (stride 0 on new and expanded
        dims): ``Tensor.expand``, whose in-place writes the caller checks."""

    @abstractmethod
    def reshape(self, a, shape):
        """``a`` reshaped: a view when the strides allow, otherwise a copy."""

    @abstractmethod
    def shares_memory(self, a, b):
        """Whether two arrays may overlap in memory."""

    @abstractmethod
    def data_ptr(self, a):
        """The address of ``a``'s first element."""

    # -- memory layout (in-place safety checks) ------------------------------------------

    @abstractmethod
    def storage_size(self, a):
        """The number of elements of the storage ``a`` is a view of."""

    @abstractmethod
    def storage_nbytes(self, a):
        """The size in bytes of the storage ``a`` is a view of."""

    @abstractmethod
    def storage_data_ptr(self, a):
        """The address of the start of ``a``'s storage."""

    @abstractmethod
    def is_shared(self, a):
        """Whether ``a``'s storage is in memory shared between processes."""

    @abstractmethod
    def to_shared(self, a):
        """A copy of ``a`` (same shape and dtype) in memory shared between processes."""

    @abstractmethod
    def as_strided(self, a, shape, strides, offset):
        """The view of ``a``'s storage with ``shape``, ``strides`` (in elements) and
        ``offset`` (elements from the storage's start); the caller checks the bounds."""

    @abstractmethod
    def storage_offset(self, a):
        """Offset of ``a``'s first element from the start of its storage, in elements."""

    @abstractmethod
    def any_nan(self, a):
        """Whether floating ``a`` holds a NaN, as a Python bool (a device sync on a GPU:
        for anomaly mode only, never the hot path)."""

    @abstractmethod
    def is_contiguous(self, a):
        """Whether ``a`` is C-contiguous (row-major, no gaps)."""

    @abstractmethod
    def is_read_only(self, a):
        """Whether ``a``'s memory may not be written (a read-only buffer)."""

    @abstractmethod
    def has_internal_overlap(self, a):
        """Whether two elements of ``a`` share one memory location (a zero stride on an
        axis of size > 1, as an expanded view has): writing to ``a`` is then ill-defined."""

    @abstractmethod
    def partial_overlap(self, a, b):
        """PyTorch's partial-overlap rule: True when ``a`` and ``b`` are both dense (no
        gaps, no repeats), in one storage, and their memory ranges overlap without being the
        same elements in the same layout."""

    # -- host read-back (printing, ``tolist``: never the hot path) -----------------------

    @abstractmethod
    def edge_items(self, a, edge):
        """A copy of ``a`` in which every axis longer than ``2 * edge`` keeps only its first
        ``edge`` and last ``edge`` items (in order; none when ``edge`` is 0), computed on the
        device: what a summarised ``repr`` prints, so only those items reach the host."""

    @abstractmethod
    def to_list(self, a):
        """The values of ``a`` on the host as nested Python lists, a Python scalar for a 0-d
        array: ``bool`` for bool, ``int`` for the integer dtypes, ``float`` (exact) for every
        floating dtype, float16 and bfloat16 included. A device-to-host copy."""

    # -- DLPack (zero-copy exchange with other libraries) ----------------------------------

    @abstractmethod
    def to_dlpack(self, a, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (a PyCapsule named ``"dltensor"``, or ``"dltensor_versioned"``
        when ``max_version`` is at least ``(1, 0)``) describing ``a``'s memory without a copy
        (unless ``copy=True``): ``Tensor.__dlpack__``. The memory stays alive until the
        consumer calls the managed tensor's deleter, or until the capsule dies unconsumed.
        Every dtype of the backend is exported, bfloat16 included (DLPack's ``kDLBfloat``).
        ``stream``, ``dl_device`` and ``copy`` are the array API's; a request the backend
        cannot honour raises :class:`~lucid.errors.ExportError` naming ``__dlpack__``."""

    @abstractmethod
    def from_dlpack(self, obj):
        """An array of this backend sharing the memory of ``obj``, an object with
        ``__dlpack__`` or a raw DLPack capsule (``torch.utils.dlpack.to_dlpack``), bfloat16
        included: ``lucid.from_dlpack``. The capsule is consumed (renamed
        ``"used_dltensor"``), and the producer's deleter runs once the array and its views
        are gone. A capsule already consumed raises :class:`~lucid.errors.ArgumentError`
        naming ``from_dlpack``."""
