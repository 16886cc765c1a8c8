"""Indexing kernels of the Backend interface: views by basic indices, advanced (integer
array) indexing, index-put, masked fill, scatter reductions and ``nonzero``.

An *advanced index* is a tuple whose entries are full slices ``slice(None)`` and integer
arrays, or full slices and one bool mask (standing for its ``nonzero`` arrays); the
arrays broadcast together, and the broadcast dims replace the indexed dims in place when
the arrays are adjacent, else they come first (NumPy's and PyTorch's rule). Kernels that
take one raise ``IndexError`` for an index outside ``[-n, n)``; the ops check tighter
bounds themselves where PyTorch has them.
"""

from abc import ABC, abstractmethod


class IndexingKernels(ABC):
    """Indexing primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def basic_index(self, a, index):
        """The view ``a[index]`` for a tuple of non-negative ints, slices with a positive
        step and ``None`` (a new size-1 dim): it shares ``a``'s memory."""

    @abstractmethod
    def index(self, a, index):
        r"""A new array :math:`y_j = a_{i_0(j), i_1(j), \ldots}` gathered by the advanced
        ``index``."""

    @abstractmethod
    def index_put_(self, a, index, v, accumulate):
        r"""In place :math:`a[\mathrm{index}] = v`, ``v`` broadcast to the indexed shape.

        With ``accumulate``, :math:`a[\mathrm{index}] \mathrel{+}= v` where repeated
        indices add every contribution (unbuffered, like ``ufunc.at``); without it, which
        of several writes to one element wins is unspecified (the last, on NumPy). ``v``
        may also be a Python number.
        """

    @abstractmethod
    def check_index_bounds(self, a, low, high, describe=None):
        """Raise :class:`~lucid.errors.IndexingError` ("index v is out of bounds", passed
        through ``describe`` when given, which adds the op's context) unless every element
        of the integer array ``a`` is in ``[low, high)``: the bounds check of gather,
        scatter, take, put, embeddings and class targets. A GPU backend checks on the
        device and raises at the next host read instead of reading ``a`` back now."""

    @abstractmethod
    def count_true(self, mask):
        """The number of true elements of bool array ``mask``, as a Python int."""

    @abstractmethod
    def grid_index(self, index, dim):
        r"""The advanced index of a gather or scatter along ``dim``: ``index`` at ``dim``
        and ``arange(n_d)`` shaped to broadcast at every other dim :math:`d`, so that
        :math:`a[\mathrm{grid}]_{i} = a_{i_0, \ldots, \mathrm{index}_{i}, \ldots}`."""

    @abstractmethod
    def nonzero(self, a):
        """The ``(n, a.ndim)`` int64 array of the coordinates of ``a``'s non-zero
        elements, in C order."""

    @abstractmethod
    def nonzero_index(self, mask):
        """The advanced index (a tuple of ``mask.ndim`` int64 arrays, ``mask.ndim >= 1``)
        of ``mask``'s true elements, in C order."""

    @abstractmethod
    def masked_fill(self, a, mask, v):
        r""":math:`y = \mathrm{mask} \;?\; v : a`, broadcasting ``a`` and ``mask``."""

    @abstractmethod
    def scatter_reduce(self, a, index, src, reduce, include_self):
        r"""A copy of ``a`` where each element reduces the ``src`` elements that the
        advanced ``index`` (a :meth:`grid_index` of ``src``'s shape) scatters onto it,
        and itself when ``include_self``.

        ``reduce``: ``"sum"``, ``"prod"``, ``"mean"`` (floor division for integers),
        ``"amax"``, ``"amin"`` (NaN propagates). Elements nothing is scattered onto keep
        their value.
        """

    @abstractmethod
    def scatter_count(self, shape, index, include_self, npdtype):
        """Counts of ``shape`` in ``npdtype``: how many entries of the advanced ``index``
        point at each element, plus one when ``include_self``."""
