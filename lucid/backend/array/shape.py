"""Shape kernels over an array module (NumPy or CuPy)."""

import math

from ...errors import ValueOverflowError

_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _along(ndim, axis, index):
    """An index tuple selecting ``index`` along ``axis`` and everything elsewhere."""
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def _pad_value(xp, value, dtype):
    """The constant fill of ``pad`` for an array of ``dtype``: as PyTorch's kernel, a value
    outside an integer dtype's range is an error (no wrapping); floats truncate."""
    if dtype.kind not in "iu" or value is None:
        return value
    info = xp.iinfo(dtype)
    if not (math.isfinite(value) and int(info.min) <= value <= int(info.max)):
        raise ValueOverflowError(
            f"pad: value {value} cannot be converted to type {dtype.name} without overflow"
        )
    return math.trunc(value)


class XpShape:
    """Implements :class:`ShapeKernels` with ``self.xp``."""

    def permute(self, a, axes):
        return a.transpose(axes)

    def swapaxes(self, a, d0, d1):
        return self.xp.swapaxes(a, d0, d1)

    def reshape_view(self, a, shape):
        try:
            return self.xp.reshape(a, shape, copy=False)
        except ValueError:
            return None

    def narrow(self, a, dim, start, length):
        return a[_along(a.ndim, dim, slice(start, start + length))]

    def diagonal(self, a, offset, dim1, dim2):
        if offset >= 0:
            b = a[_along(a.ndim, dim2, slice(offset, None))]
        else:
            b = a[_along(a.ndim, dim1, slice(-offset, None))]
        keep = [i for i in range(a.ndim) if i != dim1 and i != dim2]
        shape = tuple(b.shape[i] for i in keep) + (min(b.shape[dim1], b.shape[dim2]),)
        strides = tuple(b.strides[i] for i in keep) + (b.strides[dim1] + b.strides[dim2],)
        return self.xp.lib.stride_tricks.as_strided(b, shape, strides)

    def unfold(self, a, dim, size, step):
        n = (a.shape[dim] - size) // step + 1
        st = a.strides
        shape = a.shape[:dim] + (n,) + a.shape[dim + 1 :] + (size,)
        strides = st[:dim] + (st[dim] * step,) + st[dim + 1 :] + (st[dim],)
        return self.xp.lib.stride_tricks.as_strided(a, shape, strides)

    def unfold_backward(self, g, shape, dim, size, step):
        out = self.xp.zeros(shape, dtype=g.dtype)
        n = g.shape[dim]
        if n == 0 or size == 0:
            return out
        if step >= size:  # disjoint windows: one strided write
            self.unfold(out, dim, size, step)[...] = g
            return out
        for k in range(size):  # window offset k of every window at once
            out[_along(out.ndim, dim, slice(k, k + step * (n - 1) + 1, step))] += g[..., k]
        return out

    def concatenate(self, arrays, axis):
        return self.xp.concatenate(arrays, axis=axis)

    def stack(self, arrays, axis):
        s = arrays[0].shape
        for a in arrays:
            if a.shape != s:
                raise ValueError(f"stack: arrays of shapes {s} and {a.shape} differ")
        ns = s[:axis] + (1,) + s[axis:]
        return self.concatenate([a.reshape(ns) for a in arrays], axis)

    def split(self, a, dim, sizes):
        out = []
        start = 0
        for n in sizes:
            out.append(a[_along(a.ndim, dim, slice(start, start + n))])
            start += n
        return tuple(out)

    def view_dtype(self, a, npdtype):
        return a.view(npdtype)

    def select(self, a, dim, index):
        return a[_along(a.ndim, dim, index) + (Ellipsis,)]  # a 0-d view, not a scalar

    def unbind(self, a, dim):
        return tuple(self.select(a, dim, i) for i in range(a.shape[dim]))

    def flip(self, a, axes):
        return self.copy(self.xp.flip(a, axes))

    def roll(self, a, shifts, axes):
        return self.xp.roll(a, shifts, axes)

    def tile(self, a, reps):
        return self.xp.tile(a, reps)

    def repeat_interleave(self, a, repeats, axis):
        return self.xp.repeat(a, repeats, axis)

    def segment_sum(self, a, counts, axis):
        xp = self.xp
        shape = a.shape[:axis] + (counts.shape[0],) + a.shape[axis + 1 :]
        out = xp.zeros(shape, dtype=a.dtype)
        nz = counts > 0
        if a.shape[axis] == 0 or not bool(nz.any()):
            return out
        starts = xp.cumsum(counts) - counts
        out[_along(a.ndim, axis, nz)] = xp.add.reduceat(a, starts[nz], axis=axis)
        return out

    def repeat_indices(self, counts):
        xp = self.xp
        return xp.repeat(xp.arange(counts.shape[0], dtype=xp.int64), counts)

    def pad(self, a, pads, mode, value):
        crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(a.shape, pads))
        a = a[crop]
        pos = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
        if mode == "constant":
            shape = tuple(n + lo + hi for n, (lo, hi) in zip(a.shape, pos))
            value = _pad_value(self.xp, value, a.dtype)
            out = self.xp.full(shape, value, dtype=a.dtype)
            out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(a.shape, pos))] = a
            return out
        return self.xp.pad(a, pos, mode=_PAD_MODES[mode])

    def pad_backward(self, g, pads, mode):
        if mode == "constant":
            return self.pad(g, tuple((-lo, -hi) for lo, hi in pads), "constant", 0)
        for axis, (lo, hi) in enumerate(pads):
            lo, hi = max(lo, 0), max(hi, 0)
            if lo or hi:
                g = self._fold(g, axis, lo, hi, mode)
        neg = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in pads)
        return self.pad(g, neg, "constant", 0) if any(lo or hi for lo, hi in neg) else g

    def _fold(self, g, axis, lo, hi, mode):
        """Adjoint of padding one axis by ``(lo, hi)``: pad cells added to their sources."""
        xp = self.xp
        nd = g.ndim
        n = g.shape[axis] - lo - hi
        res = xp.array(g[_along(nd, axis, slice(lo, lo + n))], copy=True)
        left = g[_along(nd, axis, slice(0, lo))]
        right = g[_along(nd, axis, slice(lo + n, lo + n + hi))]
        if mode == "replicate":
            if lo:
                res[_along(nd, axis, slice(0, 1))] += left.sum(axis=axis, keepdims=True)
            if hi:
                res[_along(nd, axis, slice(n - 1, n))] += right.sum(axis=axis, keepdims=True)
        elif mode == "reflect":  # cell j < lo copies lo - j; lo+n+k copies n-2-k
            if lo:
                res[_along(nd, axis, slice(1, lo + 1))] += xp.flip(left, axis)
            if hi:
                res[_along(nd, axis, slice(n - 1 - hi, n - 1))] += xp.flip(right, axis)
        else:  # circular: j < lo copies n - lo + j; k copies k
            if lo:
                res[_along(nd, axis, slice(n - lo, n))] += left
            if hi:
                res[_along(nd, axis, slice(0, hi))] += right
        return res
