"""Core kernels over an array module (NumPy or CuPy share this code)."""


class XpCore:
    """Implements :class:`CoreKernels` with ``self.xp``."""

    def asarray(self, data, dtype=None, copy=None):
        return (
            self.xp.asarray(data, dtype=dtype)
            if copy is None
            else self.xp.array(data, dtype=dtype, copy=copy)
        )

    def from_backend(self, a, other, non_blocking=False):
        return a if other is self else self.asarray(other.to_numpy(a, non_blocking))

    def astype(self, a, npdtype):
        return a.astype(npdtype)

    def copy(self, a):
        return self.xp.array(a, order="C", copy=True)

    def empty(self, shape, npdtype):
        return self.xp.empty(shape, dtype=npdtype)

    def full(self, shape, value, npdtype):
        return self.xp.full(shape, value, dtype=npdtype)

    def ones(self, shape, npdtype):
        if shape == ():
            return self.xp.asarray(1, dtype=npdtype)
        return self.xp.ones(shape, dtype=npdtype)

    def broadcast_copy(self, a, shape):
        out = self.xp.empty(shape, dtype=a.dtype)
        out[...] = a
        return out

    def ones_like(self, a):
        return self.xp.ones_like(a)

    def zeros_like(self, a):
        return self.xp.zeros_like(a)

    def assign(self, dst, src):
        dst[...] = src

    def add_into(self, dst, src):
        dst += src

    def sum_to(self, a, shape):
        if a.shape == shape:
            return a
        lead = a.ndim - len(shape)
        keep = tuple(lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
        if not keep:  # leading axes only: the sum has the shape (and owns
            return a.sum(axis=tuple(range(lead)))  # its memory: no view of it)
        return a.sum(axis=tuple(range(lead)) + keep, keepdims=True).reshape(shape)

    def _accumulate(self, ufunc, a, axis):
        """``ufunc.accumulate`` along ``axis`` (a backend whose ufuncs lack it overrides)."""
        return ufunc.accumulate(a, axis=axis)

    def _ufunc_at(self, ufunc, a, index, v):
        """``ufunc.at(a, index, v)``: in place and unbuffered, so every repeat of an index
        counts (a backend whose ``ufunc.at`` misses a dtype or ufunc overrides)."""
        ufunc.at(a, index, v)

    def broadcast_to(self, a, shape):
        return self.xp.broadcast_to(a, shape)

    def expand(self, a, shape):
        lead = len(shape) - a.ndim
        strides = (0,) * lead + tuple(
            0 if n == 1 and m != 1 else st for st, n, m in zip(a.strides, a.shape, shape[lead:])
        )
        return self.xp.lib.stride_tricks.as_strided(a, shape, strides)

    def reshape(self, a, shape):
        return a if a.shape == shape else a.reshape(shape)  # CuPy's costs us even then

    def shares_memory(self, a, b):
        return self.xp.shares_memory(a, b)

    # -- memory layout ----------------------------------------------------------------

    def _root(self, a):
        """The array owning ``a``'s memory (through ``as_strided``'s holder objects too)."""
        nd = self.ndarray
        while True:
            b = a.base
            if b is None:
                return a
            if not isinstance(b, nd):
                b = getattr(b, "base", None)  # stride_tricks' holder of the original
                if not isinstance(b, nd):
                    return a
            a = b

    def storage_size(self, a):
        return self._root(a).nbytes // a.itemsize  # in a's elements (a dtype view too)

    def storage_nbytes(self, a):
        return self._root(a).nbytes

    def storage_data_ptr(self, a):
        return self.data_ptr(self._root(a))

    def as_strided(self, a, shape, strides, offset):
        flat = self._root(a).reshape(-1)  # an owning array: contiguous, a view
        if flat.dtype != a.dtype:  # a dtype view: the storage in a's elements
            n = flat.nbytes // a.itemsize
            flat = flat.view(self.xp.uint8)[: n * a.itemsize].view(a.dtype)
        return self.xp.lib.stride_tricks.as_strided(
            flat[offset:], shape, tuple(s * a.itemsize for s in strides)
        )

    def storage_offset(self, a):
        return (self.data_ptr(a) - self.data_ptr(self._root(a))) // a.itemsize

    def any_nan(self, a):
        return bool(self.xp.isnan(a).any())

    def is_contiguous(self, a):
        return bool(a.flags.c_contiguous)

    def is_read_only(self, a):
        flags = getattr(a, "flags", None)
        return flags is not None and not getattr(flags, "writeable", True)

    def has_internal_overlap(self, a):
        return (
            0 in a.strides
            and a.size > 1
            and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))
        )

    def partial_overlap(self, a, b):
        if a.size == 0 or b.size == 0 or self._root(a) is not self._root(b):
            return False
        if not (_dense(a) and _dense(b)):
            return False  # PyTorch: too hard to tell, allowed
        a0, b0 = self.data_ptr(a), self.data_ptr(b)
        a1, b1 = a0 + a.nbytes, b0 + b.nbytes
        if a0 == b0 and a1 == b1:
            return a.strides != b.strides or a.shape != b.shape
        return a0 < b1 and b0 < a1

    # -- host read-back ---------------------------------------------------------------

    def edge_items(self, a, edge):
        edge = max(int(edge), 0)
        for axis, n in enumerate(a.shape):
            if n > 2 * edge:
                head = (slice(None),) * axis
                a = self.xp.concatenate(
                    (a[head + (slice(0, edge),)], a[head + (slice(n - edge, n),)]), axis=axis
                )
        return self.xp.array(a, copy=True)

    def to_list(self, a):
        h = self.to_numpy(a)
        if h.dtype.itemsize == 2 and h.dtype.kind not in "biu":
            h = h.astype("float32")  # float16/bfloat16: exact in float32
        return h.tolist()


def _dense(a):
    """Whether ``a``'s elements fill a contiguous block exactly once (any axis order)."""
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expect = a.itemsize
    for st, n in dims:
        if st != expect:
            return False
        expect *= n
    return True
