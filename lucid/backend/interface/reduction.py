"""Reduction and scan kernels of the Backend interface.

``axis`` is a tuple of non-negative ints for reductions over several dims, one int for
scans and for reductions that return indices. Backward kernels take the incoming gradient
``g`` and saved output ``out`` with the reduced dims kept (size 1), so they broadcast
against the input. Half-precision inputs accumulate in float32 and the result is cast back.
Floating kernels are silent on inf/nan like PyTorch.
"""

from abc import ABC, abstractmethod


class ReductionKernels(ABC):
    """Reduction and scan primitive kernels (arrays of one backend in and out)."""

    # -- sums and products -----------------------------------------------------------

    @abstractmethod
    def sum(self, a, axis, keepdims, npdtype=None):
        r"""Sum :math:`\sum_{i \in D} a_i` over ``axis``, accumulating in ``npdtype`` when
        given."""

    @abstractmethod
    def mean(self, a, axis, keepdims, npdtype=None):
        r"""Mean :math:`\frac{1}{|D|} \sum_{i \in D} a_i` (nan over an empty reduction)."""

    @abstractmethod
    def prod(self, a, axis, keepdims, npdtype=None):
        r"""Product :math:`\prod_{i \in D} a_i` (1 over an empty reduction)."""

    @abstractmethod
    def prod_others(self, a, axis):
        r"""For each element, the product of the *other* elements along int ``axis``:
        :math:`\prod_{j \ne i} a_j`, exact with zeros (exclusive prefix times exclusive
        suffix products where any element is zero, ``prod / a`` otherwise)."""

    @abstractmethod
    def nansum(self, a, axis, keepdims, npdtype=None):
        r"""Sum over ``axis`` treating nan as 0."""

    @abstractmethod
    def nanmean(self, a, axis, keepdims):
        r"""Mean of the non-nan elements over ``axis`` (nan where all are nan)."""

    # -- moments ---------------------------------------------------------------------

    @abstractmethod
    def var(self, a, axis, keepdims, correction):
        r"""Variance :math:`\frac{1}{\max(0, N - c)} \sum_{i \in D} (a_i - \bar a)^2`
        (inf or nan when :math:`N - c \le 0`)."""

    @abstractmethod
    def std(self, a, axis, keepdims, correction):
        r"""Standard deviation :math:`\sqrt{\mathrm{var}}` in ``a``'s dtype, with half types
        accumulated and rooted in float32 (so float16 ``std([300, -300])`` is 424.25, though
        its variance overflows float16)."""

    @abstractmethod
    def var_backward(self, a, g, axis, correction):
        r""":math:`g \cdot \frac{2 (a - \bar a)}{\max(0, N - c)}`."""

    @abstractmethod
    def std_backward(self, a, out, g, axis, correction):
        r""":math:`g \cdot \frac{a - \bar a}{\max(0, N - c)\,\sigma}` with ``out`` =
        :math:`\sigma` (0 where :math:`\sigma = 0`)."""

    @abstractmethod
    def logsumexp(self, a, axis, keepdims):
        r"""Stable :math:`m + \log \sum_{i \in D} e^{a_i - m}` with :math:`m = \max a`
        (0 where the max is infinite); :math:`-\infty` over an empty reduction."""

    @abstractmethod
    def logsumexp_backward(self, a, out, g):
        r""":math:`g \cdot e^{a - \mathrm{out}}` (the softmax of ``a`` times ``g``)."""

    @abstractmethod
    def vector_norm(self, a, p, axis, keepdims):
        r""":math:`(\sum_{i \in D} |a_i|^p)^{1/p}`; ``p`` = inf / -inf: max / min of
        :math:`|a|`; ``p`` = 0: the count of non-zeros."""

    @abstractmethod
    def vector_norm_backward(self, a, out, g, p, axis):
        r""":math:`g\,\mathrm{sign}(a)\,|a|^{p-1} / \mathrm{out}^{p-1}` (0 where ``out`` is
        0 and, for :math:`p < 1`, where :math:`a` is 0); inf norms: ``g`` times sign split
        evenly among the extreme elements; ``p`` = 0: zeros."""

    # -- extremes --------------------------------------------------------------------

    @abstractmethod
    def amax(self, a, axis, keepdims):
        """Maximum over ``axis`` (nan propagates)."""

    @abstractmethod
    def amin(self, a, axis, keepdims):
        """Minimum over ``axis`` (nan propagates)."""

    @abstractmethod
    def even_weights(self, mask, axis, npdtype):
        r""":math:`m_i / \sum_{j \in D} m_j` for a boolean ``mask``, in ``npdtype``: a
        gradient split evenly among the selected elements (ties of a max, min or median;
        the non-nan elements of a nanmean). nan where a slice selects nothing."""

    @abstractmethod
    def argmax(self, a, axis, keepdims):
        """Index of the first maximum along int ``axis`` (None: of the flattened array;
        ``keepdims`` then keeps every dim as size 1), as int64."""

    @abstractmethod
    def argmin(self, a, axis, keepdims):
        """Index of the first minimum, like :meth:`argmax`."""

    @abstractmethod
    def max_dim(self, a, axis, keepdims):
        """``(values, indices)`` of the maximum along int ``axis`` (first one on ties)."""

    @abstractmethod
    def min_dim(self, a, axis, keepdims):
        """``(values, indices)`` of the minimum along int ``axis`` (first one on ties)."""

    @abstractmethod
    def median_dim(self, a, axis, keepdims):
        r"""``(values, indices)`` of the lower median along int ``axis``: the element of
        rank :math:`\lfloor (n-1)/2 \rfloor` in a stable sort (nan, and the index of the
        first nan, where the slice holds one)."""

    @abstractmethod
    def mode(self, a, axis, keepdims):
        """``(values, indices)`` of the most frequent value along int ``axis``: the smallest
        such value on ties, and the index of its last occurrence."""

    @abstractmethod
    def index_add_along(self, g, idx, axis, size):
        r"""Zeros of ``g``'s shape with ``axis`` of length ``size``, plus each ``g`` element
        added at its index ``idx`` along ``axis`` (:math:`out_{\ldots idx_j \ldots} \mathrel{+}=
        g_j`): the gradient of values picked by index."""

    # -- logic and counting ----------------------------------------------------------

    @abstractmethod
    def all(self, a, axis, keepdims):
        """Whether every element over ``axis`` is non-zero (bool)."""

    @abstractmethod
    def any(self, a, axis, keepdims):
        """Whether any element over ``axis`` is non-zero (bool)."""

    @abstractmethod
    def count_nonzero(self, a, axis):
        """The number of non-zero elements over ``axis`` (int64)."""

    # -- scans -----------------------------------------------------------------------

    @abstractmethod
    def cumsum(self, a, axis, npdtype=None):
        r"""Inclusive prefix sums :math:`y_i = \sum_{j \le i} a_j` along int ``axis``."""

    @abstractmethod
    def reverse_cumsum(self, a, axis):
        r"""Suffix sums :math:`y_i = \sum_{j \ge i} a_j` (the adjoint of :meth:`cumsum`)."""

    @abstractmethod
    def cumprod(self, a, axis, npdtype=None):
        r"""Inclusive prefix products :math:`y_i = \prod_{j \le i} a_j` along int ``axis``."""

    @abstractmethod
    def cumprod_backward(self, a, out, g, axis):
        r""":math:`\frac{\partial L}{\partial a_k} = \sum_{i \ge k} g_i \prod_{j \le i,
        j \ne k} a_j`, exact with zeros: the suffix sum of :math:`g\,y` over :math:`a_k`
        before the first zero, the suffix sum of :math:`g\,y'` at the first zero
        (:math:`y'`: the products with that zero replaced by 1), 0 after it."""

    @abstractmethod
    def cummax(self, a, axis):
        """``(values, indices)`` of the running maximum along int ``axis``; an equal or nan
        element takes over the index (PyTorch's rule)."""

    @abstractmethod
    def cummin(self, a, axis):
        """``(values, indices)`` of the running minimum, like :meth:`cummax`."""

    @abstractmethod
    def diff(self, a, n, axis):
        r""":math:`n`-th forward difference :math:`y_i = a_{i+1} - a_i` along int ``axis``
        (``!=`` for bool)."""
