"""Sort kernels of the Backend interface."""

from abc import ABC, abstractmethod


class SortKernels(ABC):
    """Sort primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def sort(self, a, axis, descending):
        """``(values, indices)`` of a *stable* sort of ``a`` along ``axis``.

        Ascending order puts NaN last; descending puts NaN first (NaN is the largest value,
        as in PyTorch); equal keys keep their input order either way. Indices are int64.
        """

    @abstractmethod
    def unique(self, a, axis):
        """``(values, inverse, counts)`` of the sorted distinct elements of ``a`` (flattened
        when ``axis`` is None) or distinct slices along ``axis``; NaNs stay distinct."""

    @abstractmethod
    def unique_consecutive(self, a, axis):
        """``(values, inverse, counts)`` collapsing runs of equal consecutive elements
        (flattened when ``axis`` is None) or slices along ``axis``."""

    @abstractmethod
    def searchsorted(self, seq, values, right, sorter=None):
        """Insertion points of ``values`` into the last axis of sorted ``seq`` (int64).

        A 1-d ``seq`` serves every value; otherwise ``seq.shape[:-1]`` equals
        ``values.shape[:-1]`` and row ``r`` of ``values`` searches row ``r`` of ``seq``.
        ``right``: the last position :math:`i` with :math:`seq_{i-1} \\le v` (else the first
        with :math:`v \\le seq_i`). ``sorter`` (int64, ``seq``'s shape): the indices that
        sort each row of an unsorted ``seq``.
        """

    @abstractmethod
    def histc(self, a, bins, lo, hi):
        """Counts of ``a`` in ``bins`` equal-width bins over ``[lo, hi]`` (``a``'s dtype).

        Bin :math:`\\lfloor (x - lo)\\,n / (hi - lo) \\rfloor`, computed in ``a``'s dtype;
        ``hi`` falls in the last bin; values outside the range (and NaN) are ignored.
        """

    @abstractmethod
    def bincount(self, a, weights, minlength, npdtype):
        """Occurrences (or summed ``weights``) of each value of non-negative int ``a``,
        at least ``minlength`` long, in ``npdtype``."""
