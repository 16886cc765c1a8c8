"""Fractional max pooling over an array module: every window of every plane gathered by
one advanced index, the maximum taken along the kernel axis (no loop over planes, output
positions or kernel elements)."""

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
            alpha = rnd(xp.asarray(in_size - k, dtype=wide) / xp.asarray(out_size - 1,
                                                                           dtype=wide))
            o = xp.arange(out_size - 1, dtype=wide)
            hi = xp.trunc(rnd(rnd(o + uw[..., None]) * alpha))
            lo = xp.trunc(rnd(uw * alpha))[..., None]
            # in [0, L - K] for samples in [0, 1); clipped so that any sample stays in bounds
            start[..., :-1] = xp.clip(hi - lo, 0, in_size - k).astype(xp.int64)
        return start

    def fractional_max_pool(self, x, samples, kernel, out_spatial):
        xp = self.xp
        n = len(kernel)
        lead = x.shape[:2]
        spatial = x.shape[2:]
        starts = [self._fractional_starts(samples[..., j], spatial[j], kernel[j],
                                          out_spatial[j]) for j in range(n)]
        # gather x[b, c, a0 + k0, a1 + k1, ...] as (N, C, O0, K0, O1, K1, ...)
        axes = 2 + 2 * n
        idx = [xp.arange(lead[0]).reshape((-1,) + (1,) * (axes - 1)),
               xp.arange(lead[1]).reshape((1, -1) + (1,) * (axes - 2))]
        for j, (a, k) in enumerate(zip(starts, kernel)):
            pos = a[..., None] + xp.arange(k, dtype=xp.int64)         # (N, C, Oj, Kj)
            idx.append(pos.reshape(lead + (1, 1) * j + pos.shape[2:] + (1, 1) * (n - 1 - j)))
        win = x[tuple(idx)]
        perm = (0, 1) + tuple(range(2, axes, 2)) + tuple(range(3, axes, 2))
        win = xp.transpose(win, perm).reshape(lead + tuple(out_spatial) + (math.prod(kernel),))
        # the scan "greater, or NaN": the last NaN if there is one, else the first maximum
        w = win.astype(xp.float32) if _half(win.dtype) else win
        nan = w != w
        last_nan = win.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        first_max = xp.argmax(xp.where(nan, -xp.inf, w), axis=-1)
        arg = xp.where(nan.any(axis=-1), last_nan, first_max)
        vals = xp.take_along_axis(win, arg[..., None], -1)[..., 0]
        flat = None
        for j, (a, k) in enumerate(zip(starts, kernel)):
            kj = (arg // math.prod(kernel[j + 1:])) % k
            pos = a.reshape(lead + (1,) * j + (out_spatial[j],) + (1,) * (n - 1 - j)) + kj
            flat = pos if flat is None else flat * spatial[j] + pos
        return vals, flat
