"""Fractional max pooling over an array module: every window of every plane gathered by
one flat ``take``, then a scan over the kernel elements (a handful), never over planes or
output positions."""

import math


def _half(dt):
    return dt.itemsize == 2 and dt.kind == "f" or dt.name == "bfloat16"


class XpFractionalPool:
    """Implements :class:`~lucid.backend.interface.fractional_pool.FractionalPoolKernels`
    with ``self.xp``."""

    def _fractional_starts(self, u, in_size, k, out_size):
        """The window starts ``(N, C, O)`` (int64) of one dim from its samples ``u``
        ``(N, C)``. Half types compute in float32 rounded back after each step, which is
        the per-operation rounding of PyTorch's ``Half``/``BFloat16`` arithmetic."""
        xp = self.xp
        dt = u.dtype
        half = _half(dt)
        wide = xp.float32 if half else dt

        def rnd(v):
            return v.astype(dt).astype(wide) if half else v

        start = xp.full(u.shape + (out_size,), in_size - k, dtype=xp.int64)
        if out_size > 1:
            uw = u.astype(wide)
            alpha = rnd(xp.asarray(in_size - k, dtype=wide) / xp.asarray(out_size - 1, dtype=wide))
            o = xp.arange(out_size - 1, dtype=wide)
            hi = xp.trunc(rnd(rnd(o + uw[..., None]) * alpha))
            lo = xp.trunc(rnd(uw * alpha))[..., None]
            # in [0, L - K] for samples in [0, 1); clipped so that any sample stays in bounds
            start[..., :-1] = xp.clip(hi - lo, 0, in_size - k).astype(xp.int64)
        return start

    def fractional_max_pool(self, x, samples, kernel, out_spatial):
        xp = self.xp
        n = len(kernel)
        lead, spatial, out = x.shape[:2], x.shape[2:], tuple(out_spatial)
        # the flat spatial index of every window element, laid out (*K, N, C, *O): a sum over
        # dims of (start + k) * row stride, each term broadcast from its dim's axes
        sp = None
        for j in range(n):
            a = self._fractional_starts(samples[..., j], spatial[j], kernel[j], out[j])
            a = a.reshape((1,) * n + lead + (1,) * j + (out[j],) + (1,) * (n - 1 - j))
            k = xp.arange(kernel[j], dtype=xp.int64).reshape(
                (1,) * j + (kernel[j],) + (1,) * (n - 1 - j) + (1,) * (2 + n)
            )
            term = (a + k) * math.prod(spatial[j + 1 :])
            sp = term if sp is None else sp + term
        sp = sp.reshape((math.prod(kernel),) + lead + out)
        # one flat gather of the windows: a contiguous plane per kernel element
        plane = (xp.arange(lead[0] * lead[1], dtype=xp.int64) * math.prod(spatial)).reshape(
            lead + (1,) * n
        )
        sp += plane
        win = xp.take(x.reshape(-1), sp)
        half = _half(win.dtype)
        if half:
            win = win.astype(xp.float32)
        # PyTorch's scan in kernel order: an element replaces the running maximum where it
        # is greater or NaN (the first of equal maxima, the last NaN)
        best, idx = xp.array(win[0], copy=True), xp.array(sp[0], copy=True)
        for i in range(1, win.shape[0]):
            v = win[i]
            upd = v > best
            upd |= v != v
            xp.copyto(idx, sp[i], where=upd)
            xp.maximum(best, v, out=best)  # NaN propagates, as the scan's value
        idx -= plane  # flat in the input -> flat spatial
        return (best.astype(x.dtype) if half else best), idx
