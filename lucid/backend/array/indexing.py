"""Indexing kernels over an array module (NumPy or CuPy)."""

from ...errors import IndexingError

_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def index_error(value, describe=None):
    """The IndexingError of an out-of-bounds ``value`` (``describe`` adds the context)."""
    msg = f"index {int(value)} is out of bounds"
    return IndexingError(describe(msg) if describe is not None else msg)


class XpIndexing:
    """Implements :class:`IndexingKernels` with ``self.xp``."""

    def basic_index(self, a, index):
        return a[index + (Ellipsis,)]  # a 0-d view, not a scalar, when all ints

    def index(self, a, index):
        try:
            return a[index]
        except IndexError as e:
            raise IndexingError(str(e)) from None

    def index_put_(self, a, index, v, accumulate):
        try:
            if not accumulate:
                a[index] = v
            elif any(getattr(i, "dtype", None) is not None and i.dtype.kind != "b" for i in index):
                self._ufunc_at(self.xp.add, a, index, v)  # integer arrays may repeat an element
            else:
                a[index] += v  # slices and a mask never repeat one
        except IndexError as e:
            raise IndexingError(str(e)) from None

    def count_true(self, mask):
        return int(self.xp.count_nonzero(mask))

    def check_index_bounds(self, a, low, high, describe=None):
        if a.size == 0:
            return
        lo, hi = int(a.min()), int(a.max())
        if lo < low or hi >= high:
            raise index_error(hi if hi >= high else lo, describe)

    def grid_index(self, index, dim):
        xp = self.xp
        nd = index.ndim
        return tuple(
            index if d == dim else xp.arange(n, dtype=xp.int64).reshape((n,) + (1,) * (nd - d - 1))
            for d, n in enumerate(index.shape)
        )

    def nonzero(self, a):
        return self.xp.argwhere(a).astype(self.xp.int64, copy=False)

    def nonzero_index(self, mask):
        return tuple(i.astype(self.xp.int64, copy=False) for i in self.xp.nonzero(mask))

    def masked_fill(self, a, mask, v):
        return self.xp.where(mask, v, a)

    def _identity(self, reduce, dt):
        """The value an element starts from when it does not take part in its reduction."""
        xp = self.xp
        if reduce in ("sum", "mean"):
            return 0
        if reduce == "prod":
            return 1
        low = reduce == "amax"
        if dt.kind == "b":
            return not low
        if dt.kind in "iu":
            info = xp.iinfo(dt)
            return info.min if low else info.max
        return -float("inf") if low else float("inf")

    def scatter_reduce(self, a, index, src, reduce, include_self):
        xp = self.xp
        out = xp.array(a, copy=True)
        if not include_self:
            out[index] = self._identity(reduce, a.dtype)
        self._ufunc_at(getattr(xp, _UFUNC[reduce]), out, index, src)
        if reduce == "mean":
            n = self.scatter_count(a.shape, index, include_self, xp.int64)
            n[n == 0] = 1
            # integer means floor-divide and keep the input's dtype (uint8 stays uint8)
            out = (out // n if a.dtype.kind in "biu" else out / n).astype(a.dtype, copy=False)
        return out

    def scatter_count(self, shape, index, include_self, npdtype):
        n = self.xp.full(shape, 1 if include_self else 0, dtype=npdtype)
        self._ufunc_at(self.xp.add, n, index, 1)
        return n
