"""Reduction and scan kernels over an array module (NumPy or CuPy).

Half-precision inputs (float16, bfloat16) accumulate in float32 and are cast back, as
PyTorch does on the CPU. Kernels that can divide by zero or meet inf/nan run under
``errstate(all="ignore")``: PyTorch is silent there.
"""

import contextlib

from .sort import sort_key


def _quiet(xp):
    es = getattr(xp, "errstate", None)
    return es(all="ignore") if es is not None else contextlib.nullcontext()


def _is_half(a):
    return a.dtype.itemsize == 2 and a.dtype.kind in "fV"


def _is_float(a):
    return a.dtype.kind in "fcV"


def _count(a, axis):
    n = 1
    for d in axis:
        n *= a.shape[d]
    return n


def _along(axis, index):
    """An index tuple selecting ``index`` (a slice) along ``axis``."""
    return (slice(None),) * axis + (index,)


def _method_sum(a, axis, keepdims, dtype):
    """``ndarray.sum``: the same as ``xp.sum`` without NumPy's Python-level dispatch layer
    (half the time on small arrays)."""
    return a.sum(axis=axis, dtype=dtype, keepdims=keepdims)


class XpReduction:
    """Implements :class:`ReductionKernels` with ``self.xp``."""

    def _acc(self, fn, a, axis, keepdims, npdtype):
        """``fn`` over ``axis``, in float32 for half inputs (result cast back)."""
        if npdtype is None and _is_half(a):
            return fn(a, axis=axis, keepdims=keepdims, dtype=self.xp.float32).astype(a.dtype)
        return fn(a, axis=axis, keepdims=keepdims, dtype=npdtype)

    def _positions(self, a, axis):
        """``0 .. n-1`` along ``axis``, shaped to broadcast against ``a``."""
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        return self.xp.arange(a.shape[axis]).reshape(shape)

    # -- sums and products -----------------------------------------------------------

    def sum(self, a, axis, keepdims, npdtype=None):
        return self._acc(_method_sum, a, axis, keepdims, npdtype)

    def mean(self, a, axis, keepdims, npdtype=None):
        with _quiet(self.xp):
            if a.size == 0 or _count(a, axis) == 0:
                s = self._acc(self.xp.sum, a, axis, keepdims, npdtype)
                return s / s.dtype.type(0)
            return self._acc(self.xp.mean, a, axis, keepdims, npdtype)

    def prod(self, a, axis, keepdims, npdtype=None):
        return self._acc(self.xp.prod, a, axis, keepdims, npdtype)

    def prod_others(self, a, axis):
        xp = self.xp
        if a.size == 0:
            return xp.ones_like(a)
        if bool((a != 0).all()):
            with _quiet(xp):
                return self.prod(a, (axis,), True) / a
        n = a.shape[axis]
        left = xp.ones_like(a)
        left[_along(axis, slice(1, None))] = a[_along(axis, slice(None, n - 1))]
        right = xp.ones_like(a)
        right[_along(axis, slice(None, n - 1))] = a[_along(axis, slice(1, None))]
        right = xp.flip(xp.cumprod(xp.flip(right, axis), axis), axis)
        return xp.cumprod(left, axis) * right

    def nansum(self, a, axis, keepdims, npdtype=None):
        if not _is_float(a):
            return self.sum(a, axis, keepdims, npdtype)
        return self.sum(self.xp.where(self.xp.isnan(a), 0, a), axis, keepdims, npdtype)

    def nanmean(self, a, axis, keepdims):
        xp = self.xp
        ok = ~xp.isnan(a)
        s = self.sum(xp.where(ok, a, 0), axis, keepdims)
        with _quiet(xp):
            return (s / xp.sum(ok, axis=axis, keepdims=keepdims)).astype(s.dtype)

    # -- moments ---------------------------------------------------------------------

    def _centered(self, a, axis):
        return a - self.mean(a, axis, True)

    def _dof(self, a, axis, correction):
        """:math:`\\max(0, N - c)`; 0 for no elements whatever :math:`c` (a negative
        correction over nothing is 0/0 = nan, as in PyTorch)."""
        n = _count(a, axis)
        return max(0.0, n - correction) if n else 0.0

    def _var(self, a, axis, keepdims, correction):
        """The variance in the accumulation dtype (float32 for half inputs)."""
        xp = self.xp
        work = a.astype(xp.float32) if _is_half(a) else a
        d = self._centered(work, axis)
        with _quiet(xp):
            sq = d * d if d.dtype.kind != "c" else d.real * d.real + d.imag * d.imag
            return xp.sum(sq, axis=axis, keepdims=keepdims) / sq.dtype.type(
                self._dof(a, axis, correction)
            )

    def var(self, a, axis, keepdims, correction):
        return self._var(a, axis, keepdims, correction).astype(a.real.dtype, copy=False)

    def std(self, a, axis, keepdims, correction):
        with _quiet(self.xp):
            return self.xp.sqrt(self._var(a, axis, keepdims, correction)).astype(
                a.real.dtype, copy=False
            )

    def var_backward(self, a, g, axis, correction):
        with _quiet(self.xp):
            return self._centered(a, axis) * (
                g * a.dtype.type(2.0) / a.dtype.type(self._dof(a, axis, correction))
            )

    def std_backward(self, a, out, g, axis, correction):
        xp = self.xp
        with _quiet(xp):
            scale = xp.where(out == 0, a.dtype.type(0), g / out)
            return self._centered(a, axis) * (scale / a.dtype.type(self._dof(a, axis, correction)))

    def logsumexp(self, a, axis, keepdims):
        xp = self.xp
        work = a.astype(xp.float32) if _is_half(a) else a
        with _quiet(xp):
            if _count(a, axis) == 0:
                out = xp.log(xp.sum(xp.exp(work), axis=axis, keepdims=keepdims))
            else:
                m = xp.amax(work, axis=axis, keepdims=True)
                m = xp.where(xp.isfinite(m), m, 0)
                out = xp.log(xp.sum(xp.exp(work - m), axis=axis, keepdims=True)) + m
                if not keepdims:
                    out = out.reshape([n for i, n in enumerate(a.shape) if i not in axis])
        return out.astype(a.dtype) if work is not a else out

    def logsumexp_backward(self, a, out, g):
        with _quiet(self.xp):
            return g * self.xp.exp(a - out)

    def vector_norm(self, a, p, axis, keepdims):
        xp = self.xp
        if a.dtype.kind == "c":  # the norm of the magnitudes (a real result)
            return self.vector_norm(xp.absolute(a), p, axis, keepdims)
        work = a.astype(xp.float32) if _is_half(a) else a
        with _quiet(xp):
            if p == 2:
                out = xp.sqrt(xp.sum(work * work, axis=axis, keepdims=keepdims))
            elif p == 1:
                out = xp.sum(xp.abs(work), axis=axis, keepdims=keepdims)
            elif p == float("inf"):
                out = xp.amax(xp.abs(work), axis=axis, keepdims=keepdims)
            elif p == float("-inf"):
                out = xp.amin(xp.abs(work), axis=axis, keepdims=keepdims)
            elif p == 0:
                out = xp.sum(work != 0, axis=axis, keepdims=keepdims).astype(work.dtype)
            else:
                s = xp.sum(xp.abs(work) ** work.dtype.type(p), axis=axis, keepdims=keepdims)
                out = s ** work.dtype.type(1.0 / p)
        return out.astype(a.dtype) if work is not a else out

    def vector_norm_backward(self, a, out, g, p, axis):
        xp = self.xp
        tr = a.real.dtype.type  # the parts' type, for complex a
        with _quiet(xp):
            if p == 0:
                return xp.zeros_like(a) * g
            if p == 1:
                return self.sgn(a) * g
            if p in (float("inf"), float("-inf")):
                return self.sgn(a) * self.even_weights(xp.abs(a) == out, axis, a.dtype) * g
            scale = xp.where(out == 0, tr(0), g / (out if p == 2 else out ** tr(p - 1)))
            if p == 2:
                return a * scale
            if p > 2:
                return a * xp.abs(a) ** tr(p - 2) * scale
            return self.sgn(a) * xp.where(a == 0, tr(0), xp.abs(a) ** tr(p - 1)) * scale

    # -- extremes --------------------------------------------------------------------

    def amax(self, a, axis, keepdims):
        return self.xp.amax(a, axis=axis, keepdims=keepdims)

    def amin(self, a, axis, keepdims):
        return self.xp.amin(a, axis=axis, keepdims=keepdims)

    def even_weights(self, mask, axis, npdtype):
        mask = mask.astype(npdtype)
        with _quiet(self.xp):
            return mask / self.xp.sum(mask, axis=axis, keepdims=True)

    def _arg(self, fn, a, axis, keepdims):
        if axis is None:
            r = fn(a.reshape(-1), axis=0)
            return r.astype(self.xp.int64).reshape((1,) * a.ndim if keepdims else ())
        r = fn(a, axis=axis).astype(self.xp.int64)
        return self.xp.expand_dims(r, axis) if keepdims else r

    def argmax(self, a, axis, keepdims):
        return self._arg(self.xp.argmax, a, axis, keepdims)

    def argmin(self, a, axis, keepdims):
        return self._arg(self.xp.argmin, a, axis, keepdims)

    def _pick(self, a, idx, axis, keepdims):
        """``(a[idx], idx)`` along ``axis`` for keepdims-shaped int64 ``idx``."""
        vals = self.xp.take_along_axis(a, idx, axis)
        if not keepdims:
            vals, idx = vals.squeeze(axis), idx.squeeze(axis)
        return vals, idx

    def max_dim(self, a, axis, keepdims):
        return self._pick(a, self.argmax(a, axis, True), axis, keepdims)

    def min_dim(self, a, axis, keepdims):
        return self._pick(a, self.argmin(a, axis, True), axis, keepdims)

    def median_dim(self, a, axis, keepdims):
        xp = self.xp
        n = a.shape[axis]
        order = xp.argsort(sort_key(xp, a), axis=axis, kind="stable")  # nan last, in order
        shape = list(a.shape)
        shape[axis] = 1
        pos = xp.full(shape, (n - 1) // 2, dtype=xp.int64)
        if _is_float(a):
            nans = xp.sum(xp.isnan(a), axis=axis, keepdims=True)
            pos = xp.where(nans > 0, n - nans, pos)
        return self._pick(a, xp.take_along_axis(order, pos, axis).astype(xp.int64), axis, keepdims)

    def mode(self, a, axis, keepdims):
        xp = self.xp
        n = a.shape[axis]
        s = xp.sort(sort_key(xp, a), axis=axis).astype(a.dtype, copy=False)
        new_run = xp.ones(s.shape, dtype=bool)
        new_run[_along(axis, slice(1, None))] = (
            s[_along(axis, slice(1, None))] != s[_along(axis, slice(None, -1))]
        )
        pos = self._positions(a, axis)
        run_start = self._accumulate(xp.maximum, xp.where(new_run, pos, 0), axis)
        best = xp.argmax(pos - run_start, axis=axis)  # first longest run: smallest value
        vals = xp.take_along_axis(s, xp.expand_dims(best, axis), axis)
        hit = a == vals
        if _is_float(a):
            hit |= xp.isnan(a) & xp.isnan(vals)
        last = n - 1 - xp.argmax(xp.flip(hit, axis), axis=axis, keepdims=True)
        return self._pick(a, last.astype(xp.int64), axis, keepdims)

    def index_add_along(self, g, idx, axis, size):
        xp = self.xp
        if g.dtype.kind == "c":  # bincount weights are real: each part on its own
            return self.make_complex(
                self.index_add_along(g.real, idx, axis, size),
                self.index_add_along(g.imag, idx, axis, size),
            )
        g2 = xp.moveaxis(g, axis, -1)
        i2 = xp.moveaxis(idx, axis, -1)
        lead = g2.shape[:-1]
        rows = 1
        for n in lead:
            rows *= n
        flat = (xp.arange(rows).reshape(-1, 1) * size + i2.reshape(rows, i2.shape[-1])).reshape(-1)
        out = xp.bincount(flat, weights=g2.reshape(-1).astype(xp.float64), minlength=rows * size)
        return xp.moveaxis(out.astype(g.dtype).reshape(lead + (size,)), -1, axis)

    # -- logic and counting ----------------------------------------------------------

    def all(self, a, axis, keepdims):
        return self.xp.all(a, axis=axis, keepdims=keepdims)

    def any(self, a, axis, keepdims):
        return self.xp.any(a, axis=axis, keepdims=keepdims)

    def count_nonzero(self, a, axis):
        return self.xp.sum(a != 0, axis=axis, dtype=self.xp.int64)

    # -- scans -----------------------------------------------------------------------

    def cumsum(self, a, axis, npdtype=None):
        if npdtype is None and _is_half(a):
            return self.xp.cumsum(a, axis=axis, dtype=self.xp.float32).astype(a.dtype)
        return self.xp.cumsum(a, axis=axis, dtype=npdtype)

    def reverse_cumsum(self, a, axis):
        xp = self.xp
        return xp.flip(self.cumsum(xp.flip(a, axis), axis), axis)

    def cumprod(self, a, axis, npdtype=None):
        if npdtype is None and _is_half(a):
            return self.xp.cumprod(a, axis=axis, dtype=self.xp.float32).astype(a.dtype)
        return self.xp.cumprod(a, axis=axis, dtype=npdtype)

    def cumprod_backward(self, a, out, g, axis):
        xp = self.xp
        zero = a == 0
        with _quiet(xp):
            if not bool(zero.any()):
                return self.reverse_cumsum(g * out, axis) / a
            seen = xp.cumsum(zero, axis=axis)
            before, first = seen == 0, zero & (seen == 1)
            part_a = self.reverse_cumsum(g * out, axis) / xp.where(before, a, 1)
            part_b = self.reverse_cumsum(g * xp.cumprod(xp.where(first, 1, a), axis), axis)
            return xp.where(before, part_a, xp.where(first, part_b, 0))

    def _cum_extreme(self, ufunc, a, axis):
        xp = self.xp
        vals = self._accumulate(ufunc, a, axis)
        record = a == vals
        if _is_float(a):
            record |= xp.isnan(a)
        pos = self._positions(a, axis)
        idx = self._accumulate(xp.maximum, xp.where(record, pos, 0), axis)
        return vals, idx.astype(xp.int64)

    def cummax(self, a, axis):
        return self._cum_extreme(self.xp.maximum, a, axis)

    def cummin(self, a, axis):
        return self._cum_extreme(self.xp.minimum, a, axis)

    def diff(self, a, n, axis):
        return self.xp.diff(a, n=n, axis=axis)
