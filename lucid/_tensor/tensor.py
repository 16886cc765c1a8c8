"""The :class:`Tensor`: one backend array plus dtype, device and autograd metadata.

Views share their base's memory and version counter (``_vc``, a one-element list); every
in-place op bumps it, and a node that saved a tensor compares the counter at backward.
Ops, operators and most methods are installed on the class by :mod:`lucid.ops`, the layer
above, and the constructor from data (``Tensor(data)``) and pickling by ``factory.py``,
which reads data; what lives here is what needs neither.
"""

from __future__ import annotations

import numbers
import weakref
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .._device import CPU, device as _device_cls
from .._hooks import RemovableHandle
from .._state import STATE
from ..errors import AutogradError, DimError, DTypeError, ExportError, ShapeError
from .format import tensor_repr

__all__ = ["Tensor"]


class Tensor:
    """A multi-dimensional array on one device, optionally recording gradients."""

    # _vc: the version counter, shared by views; _base: the tensor a differentiable view
    # was made from; _view_v: the version at which a view's history was last taken from its
    # base (a view whose base changed in place since then takes the base's new history);
    # _inf: made under inference mode (cannot be saved for backward).
    __slots__ = (
        "_data",
        "_dtype",
        "_device",
        "_vc",
        "_base",
        "_requires_grad",
        "_grad_fn",
        "_output_nr",
        "_grad",
        "_accum",
        "_meta",
        "_view_v",
        "_inf",
        "__weakref__",
    )

    __array_priority__ = 1000  # NumPy defers ``ndarray * Tensor`` to Tensor.__rmul__

    if TYPE_CHECKING:
        # for the type checker only: the methods and operators lucid.ops installs on the
        # class at import (lucid.ops.core._bind)
        def __getattr__(self, name: str) -> Any: ...

    # -- construction (internal) -------------------------------------------------------

    def _init(self, data, dt, dev):
        """Fill the slots of ``self`` as :meth:`_wrap` fills a new tensor's."""
        plain = Tensor._wrap(data, dt, dev)
        for name in Tensor.__slots__:
            if name not in ("_view_v", "__weakref__"):  # the slots _wrap fills
                object.__setattr__(self, name, getattr(plain, name))

    @classmethod
    def _wrap(cls, data, dt, dev):
        """A plain tensor around backend array ``data`` (no copy)."""
        t = object.__new__(cls)
        t._data = data
        t._dtype = dt
        t._device = dev
        t._vc = [0]
        t._base = None
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._grad = None
        t._accum = None
        t._meta = None
        t._inf = STATE.inference  # (_view_v is set with _base, by the view machinery)
        return t

    @classmethod
    def _from_node_output(cls, data, node, output_nr):
        t = cls._wrap(data, _dt.from_numpy_dtype(data.dtype), _device_of(node))
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = output_nr
        return t

    # -- basic properties --------------------------------------------------------------

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape, or its extent along ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:
            raise DimError(f"size: dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_norm_dim(dim, self._data.ndim, "size")]

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    # Storage kinds and devices PyTorch has and Lucid does not: always False, so that code
    # asking (``if input.is_xpu: ...``) takes its dense CPU/CUDA path.
    is_xpu = is_mps = is_meta = is_mkldnn = is_quantized = is_sparse = is_sparse_csr = is_nested = (
        property(lambda self: False, doc="False: Lucid has no such device or layout.")
    )

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self._data.size * self._dtype.itemsize

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_complex(self):
        return self._dtype.is_complex

    def is_contiguous(self, memory_format=None):
        return self._device._backend.is_contiguous(self._data)

    def stride(self, dim=None):
        """Strides in elements, like PyTorch's."""
        s = tuple(b // self._dtype.itemsize for b in self._data.strides)
        return s if dim is None else s[_norm_dim(dim, self._data.ndim, "stride")]

    def storage_offset(self):
        return self._device.backend.storage_offset(self._data)

    def data_ptr(self):
        return self._device.backend.data_ptr(self._data)

    def untyped_storage(self):
        """The bytes this tensor's elements live in, shared with its views."""
        return UntypedStorage(self._data, self._device)

    def share_memory_(self):
        """Move the storage to shared memory (inherited by worker processes that fork);
        a no-op when it is there already."""
        be = self._device.backend
        if not be.is_shared(self._data):
            self._data = be.to_shared(self._data)
        return self

    def is_shared(self):
        """Whether the storage is in shared memory."""
        return self._device.backend.is_shared(self._data)

    @property
    def _version(self):
        return self._vc[0]

    @property
    def _is_view(self):
        return self._base is not None

    def _bump(self):
        self._vc[0] += 1

    def is_inference(self):
        """Whether this tensor was made under ``inference_mode``."""
        return self._inf

    # -- autograd metadata -------------------------------------------------------------

    @property
    def grad_fn(self):
        """The node that made this tensor (None for leaves). A view whose base changed in
        place since takes the base's new history first, as in PyTorch."""
        if self._base is not None and self._view_v != self._vc[0]:
            refresh_view(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def requires_grad(self):
        if self._base is not None and self._view_v != self._vc[0]:
            refresh_view(self)
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        flag = bool(flag)
        if self.grad_fn is not None:
            if not flag:
                raise AutogradError(
                    "requires_grad: you can only change requires_grad flags of leaf tensors; "
                    "use detach() to get a tensor that does not require grad"
                )
            return
        if flag and not self._dtype._grad:
            raise DTypeError(
                f"requires_grad: only floating point tensors can require "
                f"gradients, got dtype {self._dtype} (floating point and "
                "complex dtypes can)"
            )
        self._requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise DTypeError(f"grad: got {type(value).__name__}, expected a Tensor or None")
            if value._data.shape != self._data.shape:
                raise ShapeError(
                    f"grad: assigned grad of shape {tuple(value.shape)} to a "
                    f"tensor of shape {tuple(self.shape)}"
                )
        self._grad = value

    @property
    def data(self):
        """The same storage without autograd history and with a version counter of its own
        (as PyTorch: in-place writes through ``.data`` are invisible to autograd)."""
        return Tensor._wrap(self._data, self._dtype, self._device)

    @data.setter
    def data(self, value):
        self._data = value._data
        self._dtype = value._dtype
        self._device = value._device

    @property
    def retains_grad(self):
        return (
            self.grad_fn is not None and self._meta is not None and self._meta.get("retain", False)
        )

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise AutogradError(
                "retain_grad: can't retain_grad on a tensor that has requires_grad=False"
            )
        if self.grad_fn is None or self.retains_grad:
            return
        if self._meta is None:
            self._meta = {}
        self._meta["retain"] = True
        node = self.grad_fn
        if node._retain is None:
            node._retain = {}
        node._retain[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
        replaces the gradient. Returns a handle with ``remove()``."""
        if not self._requires_grad:
            raise AutogradError(
                "register_hook: cannot register a hook on a tensor that doesn't require gradient"
            )
        if self.grad_fn is not None:
            return self.grad_fn._add_pre_hook(self._output_nr, hook)
        if self._meta is None:
            self._meta = {}
        hooks = self._meta.setdefault("hooks", [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after ``.grad`` of this leaf has been accumulated."""
        if self.grad_fn is not None:
            raise AutogradError("register_post_accumulate_grad_hook: only leaf tensors")
        if self._meta is None:
            self._meta = {}
        hooks = self._meta.setdefault("post_accumulate", [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def detach(self):
        """A tensor sharing storage and version counter, cut from the graph: a
        non-differentiable view (in-place writes through it do not enter any history)."""
        t = Tensor._wrap(self._data, self._dtype, self._device)
        t._vc = self._vc
        return t

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise AutogradError("detach_: can't detach views in place; use detach() instead")
        self._grad_fn = None
        self._requires_grad = False
        return self

    # -- conversion --------------------------------------------------------------------

    def numpy(self, *, force=False):
        """The values as a NumPy array (zero-copy on the CPU)."""
        if self._requires_grad and not force:
            raise AutogradError(
                "numpy: can't call numpy() on a tensor that requires grad; "
                "use tensor.detach().numpy()"
            )
        if self._device.type != "cpu" and not force:
            raise AutogradError(f"numpy: tensor is on {self._device}; call .cpu() first")
        return self._device.backend.to_numpy(self._data)

    def __array__(self, dtype=None, copy=None):
        a = self._device.backend.to_numpy(self._data)
        if dtype is not None:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise ShapeError(
                f"item: a Tensor with {self._data.size} elements cannot be "
                "converted to a Python scalar"
            )
        v = self._device.backend.to_numpy(self._data).reshape(()).item()
        return float(v) if self._dtype is _dt.bfloat16 else v

    def tolist(self):
        a = self._device.backend.to_numpy(self._data)
        if self._dtype is _dt.bfloat16:
            a = a.astype("float32")
        return a.tolist()

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (every dtype, bfloat16 included),
        for ``torch.from_dlpack``, ``np.from_dlpack`` or ``lucid.from_dlpack``; the array
        API's keywords. A tensor that requires grad is refused: export ``detach()``."""
        if self._requires_grad:
            raise ExportError(
                "__dlpack__: can't export a tensor that requires grad; use tensor.detach()"
            )
        return self._device.backend.to_dlpack(
            self._data, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __float__(self):
        return float(self._real_item("float"))

    def __int__(self):
        return int(self._real_item("int"))

    def _real_item(self, what):
        v = self.item()
        if v.__class__ is complex:
            raise TypeError(
                f"{what}(): can't convert a complex tensor to a real number; "
                "use .real or abs() first"
            )
        return v

    def __bool__(self):
        if self._data.size != 1:
            raise ShapeError(
                f"bool: the truth value of a tensor with {self._data.size} elements is ambiguous"
            )
        return bool(self.item())

    def __index__(self):
        if self._dtype._cat >= 2 or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self) if not spec else format(repr(self), spec)

    def __deepcopy__(self, memo):
        t = Tensor._wrap(self._device.backend.copy(self._data), self._dtype, self._device)
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = t
        return t


class UntypedStorage:
    """The storage of a tensor: its bytes, whatever the dtype and layout of the views over
    it (``Tensor.untyped_storage()``)."""

    __slots__ = ("_array", "device")

    def __init__(self, array, dev):
        self._array, self.device = array, dev

    def nbytes(self):
        return self.device.backend.storage_nbytes(self._array)

    size = __len__ = nbytes

    def data_ptr(self):
        return self.device.backend.storage_data_ptr(self._array)

    def element_size(self):
        return 1

    def is_shared(self):
        return self.device.backend.is_shared(self._array)

    def __repr__(self):
        return f"<UntypedStorage of {self.nbytes()} bytes on {self.device}>"


class Size(tuple):
    """A tensor shape: a tuple of ints with ``numel()``."""

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"lucid.Size([{', '.join(map(str, self))}])"

    def __getitem__(self, item):
        got = tuple.__getitem__(self, item)
        return Size(got) if isinstance(item, slice) else got


def refresh_view(view):
    """Give ``view`` its base's current history; installed by the ops layer, which replays
    the view chain (the tensor layer cannot call ops)."""
    _VIEW_REFRESH[0](view)


_VIEW_REFRESH = [lambda view: None]


def _device_of(node):
    be = node.be
    if be.name == "cpu":
        return CPU
    return _device_cls(be.name, be.ordinal)


def _norm_dim(dim, ndim, op):
    if not isinstance(dim, numbers.Integral):
        raise DimError(f"{op}: dim must be an int, got {type(dim).__name__}")
    lo = -max(ndim, 1)
    if not lo <= dim < max(ndim, 1):
        raise DimError(
            f"{op}: dimension out of range (expected to be in range of "
            f"[{lo}, {max(ndim, 1) - 1}], but got {dim})"
        )
    return dim % max(ndim, 1)
