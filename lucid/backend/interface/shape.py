"""Shape kernels of the Backend interface: views, joins, splits, flips, tiling, padding.

Kernels documented as *views* return arrays sharing ``a``'s memory (writable when ``a``
is); every other kernel returns a fresh array that shares nothing with its inputs.
"""

from abc import ABC, abstractmethod


class ShapeKernels(ABC):
    """Shape primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def permute(self, a, axes):
        """A view of ``a`` with its axes reordered."""

    @abstractmethod
    def swapaxes(self, a, d0, d1):
        """A view of ``a`` with axes ``d0`` and ``d1`` swapped."""

    @abstractmethod
    def reshape_view(self, a, shape):
        """``a`` reshaped as a view, or ``None`` when its strides need a copy."""

    @abstractmethod
    def narrow(self, a, dim, start, length):
        """The view ``a[..., start:start + length, ...]`` along ``dim``."""

    @abstractmethod
    def diagonal(self, a, offset, dim1, dim2):
        r"""The writable view :math:`y_{\ldots, i} = a_{\ldots, i, i + \mathrm{offset}}`.

        Axes ``dim1`` and ``dim2`` are removed and the diagonal is appended last; a
        negative ``offset`` selects below the main diagonal.
        """

    @abstractmethod
    def unfold(self, a, dim, size, step):
        r"""The view of all windows
        :math:`y_{\ldots, w, \ldots, k} = a_{\ldots, w\,step + k, \ldots}`.

        Axis ``dim`` becomes the window index (``(n - size) // step + 1`` windows) and a
        last axis of length ``size`` runs inside each window.
        """

    @abstractmethod
    def unfold_backward(self, g, shape, dim, size, step):
        r"""Adjoint of :meth:`unfold`: window gradients ``g`` summed into zeros of ``shape``.

        :math:`x_j = \sum_{w, k:\, w\,step + k = j} g_{w, k}` (overlapping windows add up).
        """

    @abstractmethod
    def concatenate(self, arrays, axis):
        """The arrays joined along existing axis ``axis``."""

    @abstractmethod
    def stack(self, arrays, axis):
        """The equally shaped arrays joined along a new axis ``axis``."""

    @abstractmethod
    def split(self, a, dim, sizes):
        """Views of consecutive pieces of ``a`` along ``dim`` with lengths ``sizes``."""

    @abstractmethod
    def view_dtype(self, a, npdtype):
        """The same memory as ``a`` read as elements of ``npdtype`` (the last dim scaled
        by the ratio of element sizes)."""

    @abstractmethod
    def select(self, a, dim, index):
        """The view ``a[..., index, ...]`` along ``dim`` (the axis removed; 0-d for 1-d
        ``a``)."""

    @abstractmethod
    def unbind(self, a, dim):
        """Views ``a[..., i, ...]`` for every ``i`` along ``dim`` (the axis removed)."""

    @abstractmethod
    def flip(self, a, axes):
        r""":math:`y_{i} = a_{n - 1 - i}` along each axis in ``axes`` (a contiguous copy)."""

    @abstractmethod
    def roll(self, a, shifts, axes):
        r""":math:`y_{(i + s) \bmod n} = a_i` per axis; ``axes=None`` rolls the flat array."""

    @abstractmethod
    def tile(self, a, reps):
        """``a`` repeated ``reps[i]`` times along axis ``i`` (leading 1s added to ``a``)."""

    @abstractmethod
    def repeat_interleave(self, a, repeats, axis):
        """Each element along ``axis`` repeated ``repeats`` (int or int array) times."""

    @abstractmethod
    def segment_sum(self, a, counts, axis):
        r"""Adjoint of :meth:`repeat_interleave`: sums of consecutive segments of lengths
        ``counts`` along ``axis``, :math:`y_i = \sum_{j \in S_i} a_j` (0 for empty ones)."""

    @abstractmethod
    def repeat_indices(self, counts):
        """``[0]*counts[0] + [1]*counts[1] + ...`` as an int64 array."""

    @abstractmethod
    def pad(self, a, pads, mode, value):
        """``a`` padded by ``pads`` (``(before, after)`` per axis; negative crops).

        ``mode``: ``"constant"`` (``value``), ``"reflect"`` (mirror without the edge),
        ``"replicate"`` (repeat the edge) or ``"circular"`` (wrap around). Cropping is
        applied before padding.
        """

    @abstractmethod
    def pad_backward(self, g, pads, mode):
        """Adjoint of :meth:`pad`: the gradient of the padded output folded back onto the
        input (padded cells added to the cells they copy; cropped cells get 0)."""
