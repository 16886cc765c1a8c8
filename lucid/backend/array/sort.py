"""Sort kernels over an array module (NumPy or CuPy)."""


def sort_key(xp, a):
    """``a`` as an array that sorts correctly: bfloat16 (ml_dtypes, NumPy kind ``"V"``)
    as float32, whose order is the same and exact, because NumPy's sorts of bfloat16 leave
    data with NaN unsorted (NaN compares false with everything); other dtypes unchanged."""
    return a.astype(xp.float32) if a.dtype.kind == "V" else a


class XpSort:
    """Implements :class:`SortKernels` with ``self.xp``."""

    def sort(self, a, axis, descending):
        xp = self.xp
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        key = sort_key(xp, a)
        if not descending:
            idx = xp.argsort(key, axis=axis, kind="stable")
        else:
            # a stable ascending sort of the reversed array, read backwards, is a stable
            # descending sort (ties keep input order) that puts NaN first
            idx = xp.flip(xp.argsort(xp.flip(key, axis), axis=axis, kind="stable"), axis)
            idx = (a.shape[axis] - 1) - idx
        idx = idx.astype(xp.int64, copy=False)
        return xp.take_along_axis(a, idx, axis), idx

    def unique(self, a, axis):
        xp = self.xp
        key = sort_key(xp, a)
        if axis is None:
            v, inv, cnt = xp.unique(
                key.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
            )
            return (
                v.astype(a.dtype, copy=False),
                inv.reshape(a.shape).astype(xp.int64, copy=False),
                cnt.astype(xp.int64, copy=False),
            )
        v, inv, cnt = xp.unique(key, return_inverse=True, return_counts=True, axis=axis)
        return (
            v.astype(a.dtype, copy=False),
            inv.reshape(-1).astype(xp.int64, copy=False),
            cnt.astype(xp.int64, copy=False),
        )

    def unique_consecutive(self, a, axis):
        xp = self.xp
        if axis is None:
            rows = a.reshape(-1, 1)
        else:  # explicit row length: a reshape cannot infer it when there are no rows
            n = a.shape[axis]
            rows = xp.moveaxis(a, axis, 0).reshape(n, a.size // n if n else 0)
        n = rows.shape[0]
        start = xp.ones(n, dtype=bool)
        start[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        first = xp.nonzero(start)[0]
        inverse = xp.cumsum(start, dtype=xp.int64) - 1
        counts = xp.diff(xp.concatenate([first, xp.asarray([n], dtype=first.dtype)]))
        if axis is None:
            return a.reshape(-1)[first], inverse.reshape(a.shape), counts.astype(xp.int64)
        return xp.take(a, first, axis=axis), inverse, counts.astype(xp.int64)

    def searchsorted(self, seq, values, right, sorter=None):
        xp = self.xp
        side = "right" if right else "left"
        if seq.ndim == 1:
            return xp.asarray(
                xp.searchsorted(seq, values, side=side, sorter=sorter), dtype=xp.int64
            )
        if sorter is not None:
            seq = xp.take_along_axis(seq, sorter, -1)
        # one binary search per row, vectorised over rows: ~log2(n) gathers
        n = seq.shape[-1]
        lo = xp.zeros(values.shape, dtype=xp.int64)
        hi = xp.full(values.shape, n, dtype=xp.int64)
        active = lo < hi
        while active.any():
            mid = (lo + hi) // 2
            v = xp.take_along_axis(seq, xp.minimum(mid, n - 1), -1)
            go = (v <= values) if right else (v < values)
            lo = xp.where(active & go, mid + 1, lo)
            hi = xp.where(active & ~go, mid, hi)
            active = lo < hi
        return lo

    def histc(self, a, bins, lo, hi):
        xp = self.xp
        lo, hi = a.dtype.type(lo), a.dtype.type(hi)
        v = a.reshape(-1)
        v = v[(v >= lo) & (v <= hi)]
        pos = ((v - lo) * bins / (hi - lo)).astype(xp.int64)
        pos = xp.minimum(pos, bins - 1)
        return xp.bincount(pos, minlength=bins).astype(a.dtype)

    def bincount(self, a, weights, minlength, npdtype):
        return self.xp.bincount(a, weights, minlength).astype(npdtype, copy=False)
