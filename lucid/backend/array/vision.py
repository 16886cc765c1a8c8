"""Vision kernels over an array module: separable resampling and grid sampling."""

import itertools
import math

_A = -0.75  # Keys' cubic convolution parameter, as PyTorch
# Lines of up to this many input points resample by one GEMM with the dense matrix (BLAS
# beats gathering a few taps there); longer ones gather their taps and scatter them back.
_GEMM_MAX = 128


def _cubic_weights(t):
    """Keys' weights of the taps at offsets -1, 0, 1, 2 for fractional position ``t``, and
    their derivatives in ``t``."""

    def near(s):  # |s| <= 1
        return ((_A + 2) * s - (_A + 3)) * s * s + 1, (3 * (_A + 2) * s - 2 * (_A + 3)) * s

    def far(s):  # 1 < |s| < 2
        return ((_A * s - 5 * _A) * s + 8 * _A) * s - 4 * _A, (3 * _A * s - 10 * _A) * s + 8 * _A

    (w0, d0), (w1, d1) = far(t + 1), near(t)
    (w2, d2), (w3, d3) = near(1 - t), far(2 - t)
    return (w0, w1, w2, w3), (d0, d1, -d2, -d3)


class XpVision:
    """Vision kernels on ``self.xp``."""

    # -- interpolate: one matrix per spatial axis ------------------------------------------

    def _interp_taps(self, n_in, n_out, mode, align_corners, scale):
        """The taps of one axis: ``[(index, weight), ...]``, arrays of length ``n_out``
        (weight ``None``: 1)."""
        xp = self.xp
        if mode.endswith("-aa"):
            return self._antialias_taps(n_in, n_out, mode, align_corners, scale)
        j = xp.arange(n_out)
        if mode in ("nearest", "nearest-exact"):  # PyTorch computes the index in float32
            r = xp.float32(1.0 / scale if scale else xp.float32(n_in) / xp.float32(n_out))
            pos = j.astype(xp.float32) + xp.float32(0.5 if mode == "nearest-exact" else 0)
            return [(xp.minimum(xp.floor(pos * r).astype(xp.int64), n_in - 1), None)]
        if align_corners:
            r = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            u = j * r
        else:
            r = 1.0 / scale if scale else n_in / n_out
            u = r * (j + 0.5) - 0.5
        if mode == "linear":
            if n_in == n_out:  # PyTorch copies an axis of unchanged size, whatever the scale
                return [(j, None)]
            u = xp.maximum(u, 0.0)
            i0 = xp.minimum(xp.floor(u).astype(xp.int64), n_in - 1)
            lam = xp.clip(u - i0, 0.0, 1.0)
            return [(i0, 1 - lam), (xp.minimum(i0 + 1, n_in - 1), lam)]
        f = xp.floor(u)
        i0 = f.astype(xp.int64)
        ws, _ = _cubic_weights(u - f)
        return [(xp.clip(i0 - 1 + k, 0, n_in - 1), w) for k, w in enumerate(ws)]

    def _antialias_taps(self, n_in, n_out, mode, align_corners, scale):
        """Antialiased taps (PyTorch's, after PIL): the filter (triangle, or Keys' cubic with
        A = -0.5) stretched by the scale when downsampling, over the inputs whose centres
        lie within its support, normalised to sum 1."""
        xp = self.xp
        if align_corners:
            r = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            r = 1.0 / scale if scale else n_in / n_out
        half = 1.0 if mode == "linear-aa" else 2.0
        support, inv = (half * r, 1.0 / r) if r >= 1.0 else (half, 1.0)
        k_max = math.ceil(support) * 2 + 1
        center = r * (xp.arange(n_out) + 0.5)
        xmin = xp.maximum((center - support + 0.5).astype(xp.int64), 0)  # C casts truncate
        xsize = xp.clip(
            xp.minimum((center + support + 0.5).astype(xp.int64), n_in) - xmin, 0, k_max
        )
        k = xp.arange(k_max)
        s = xp.abs((k + (xmin - center + 0.5)[:, None]) * inv)
        if mode == "linear-aa":
            w = xp.maximum(1 - s, 0.0)
        else:
            a = -0.5
            w = xp.where(
                s < 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                xp.where(s < 2, ((a * s - 5 * a) * s + 8 * a) * s - 4 * a, 0.0),
            )
        w = w * (k < xsize[:, None])
        total = w.sum(axis=1, keepdims=True)
        w = xp.where(total != 0, w / xp.where(total != 0, total, 1), 0)
        return [(xp.minimum(xmin + i, n_in - 1), w[:, i]) for i in range(k_max)]

    def _interp_matrix(self, n_in, n_out, mode, align_corners, scale, dtype):
        """The ``(n_out, n_in)`` matrix of one axis' resampling, in ``dtype``."""
        xp = self.xp
        rows = xp.arange(n_out)
        w = xp.zeros((n_out, n_in), dtype=xp.float64)
        for idx, wt in self._interp_taps(n_in, n_out, mode, align_corners, scale):
            w[rows, idx] += 1 if wt is None else wt  # no index repeats in one tap
        return w.astype(dtype)

    def _along(self, x, axis, m):
        """``m`` applied to the lines of ``x`` along ``axis``: ``y = m @ line``."""
        xp = self.xp
        shape = x.shape
        lead = math.prod(shape[:axis])
        if axis == x.ndim - 1:
            y = xp.matmul(x.reshape(lead, shape[-1]), m.T)
        else:
            y = xp.matmul(m, x.reshape(lead, shape[axis], math.prod(shape[axis + 1 :])))
        return y.reshape(shape[:axis] + (m.shape[0],) + shape[axis + 1 :])

    def _gather_along(self, x, axis, taps):
        """``sum_k w_k * x[..., i_k, ...]`` along ``axis``: reads only the taps."""
        xp = self.xp
        bshape = (-1,) + (1,) * (x.ndim - axis - 1)
        y = None
        for idx, wt in taps:
            v = xp.take(x, idx, axis=axis)
            if wt is not None:
                v = v * wt.astype(x.dtype).reshape(bshape)
            y = v if y is None else y + v
        return y

    def _scatter_along(self, g, axis, n_in, taps):
        """The adjoint of :meth:`_gather_along`: each ``g[..., j, ...]`` times ``w_k[j]``
        added onto ``[..., i_k[j], ...]`` of an axis of length ``n_in`` (a 1-d ``add.at``
        over the lines moved last)."""
        xp = self.xp
        gm = xp.moveaxis(g, axis, -1)
        lead, n_out = gm.shape[:-1], gm.shape[-1]
        rows = math.prod(lead)
        gm = gm.reshape(rows, n_out)
        out = xp.zeros(rows * n_in, dtype=g.dtype)
        base = (xp.arange(rows) * n_in)[:, None]
        for idx, wt in taps:
            v = gm if wt is None else gm * wt.astype(g.dtype)
            self._ufunc_at(xp.add, out, (base + idx).ravel(), v.ravel())
        return xp.moveaxis(out.reshape(lead + (n_in,)), -1, axis)

    def interpolate(self, x, size, mode, align_corners, scales):
        xp = self.xp
        dt = x.dtype
        weighted = mode not in ("nearest", "nearest-exact")
        if weighted and dt.itemsize < 4:  # half types multiply and add in float32
            x = x.astype(xp.float32)
        gemm = [weighted and x.shape[2 + k] <= _GEMM_MAX for k in range(len(size))]
        if any(gemm) and x.size and not bool(xp.isfinite(x).all()):
            gemm = [False] * len(size)  # gather: a non-finite value reaches only its taps
        for k in range(len(size) - 1, -1, -1):
            axis, n_in = 2 + k, x.shape[2 + k]
            if gemm[k]:
                x = self._along(
                    x,
                    axis,
                    self._interp_matrix(n_in, size[k], mode, align_corners, scales[k], x.dtype),
                )
            else:
                x = self._gather_along(
                    x, axis, self._interp_taps(n_in, size[k], mode, align_corners, scales[k])
                )
        return xp.ascontiguousarray(x).astype(dt, copy=False)

    def interpolate_backward(self, g, in_size, mode, align_corners, scales):
        dt = g.dtype
        if dt.itemsize < 4:  # half types accumulate in float32
            g = g.astype(self.xp.float32)
        for k in range(len(in_size) - 1, -1, -1):
            axis, n_in, n_out = 2 + k, in_size[k], g.shape[2 + k]
            if n_in <= _GEMM_MAX:
                m = self._interp_matrix(n_in, n_out, mode, align_corners, scales[k], g.dtype)
                g = self._along(g, axis, m.T)
            else:
                g = self._scatter_along(
                    g, axis, n_in, self._interp_taps(n_in, n_out, mode, align_corners, scales[k])
                )
        return self.xp.ascontiguousarray(g).astype(dt, copy=False)

    # -- grid_sample -----------------------------------------------------------------------

    def _gs_source(self, c, n, padding_mode, align_corners, pad):
        """Grid coordinate ``c`` of an axis of size ``n`` as a source position ``u`` and
        ``du/dc`` (with the padding map when ``pad``)."""
        xp = self.xp
        if align_corners:
            u, du = (c + 1) * ((n - 1) / 2), (n - 1) / 2
        else:
            u, du = ((c + 1) * n - 1) / 2, n / 2
        du = xp.full(c.shape, du, dtype=c.dtype)
        if not pad or padding_mode == "zeros":
            return u, du
        if padding_mode == "reflection":
            u, dr = self._reflect(u, n, align_corners)
            du = du * dr
        inside = (u > 0) & (u < n - 1)
        return xp.clip(u, 0, n - 1), du * inside

    def _reflect(self, u, n, align_corners):
        """``u`` reflected into ``[0, n-1]`` (``align_corners``) or ``[-1/2, n-1/2]``, and
        its derivative (+1 or -1)."""
        xp = self.xp
        lo2, hi2 = (0, 2 * (n - 1)) if align_corners else (-1, 2 * n - 1)
        if lo2 == hi2:
            return xp.zeros_like(u), xp.zeros_like(u)
        lo, span = lo2 / 2, (hi2 - lo2) / 2
        d = u - lo
        sign = xp.where(d < 0, -1, 1).astype(u.dtype)
        d = xp.abs(d)
        extra = xp.fmod(d, span)
        even = xp.floor(d / span) % 2 == 0
        return xp.where(even, extra + lo, span - extra + lo), xp.where(even, sign, -sign)

    def _gs_positions(self, f, n, mode, padding_mode, align_corners):
        """One axis' tap positions from the integral ``f`` (floor, or the rounded position
        for nearest): ``[(index clamped into [0, n), inside)]``."""
        xp = self.xp
        if mode == "nearest":
            ps = [f]
        elif mode == "bilinear":
            ps = [f, f + 1]
        else:  # bicubic: the padding maps each tap's position
            ps = [f - 1 + k for k in range(4)]
            if padding_mode == "reflection":
                ps = [self._reflect(p, n, align_corners)[0] for p in ps]
            if padding_mode != "zeros":
                ps = [xp.clip(p, 0, n - 1) for p in ps]
        return [(xp.clip(p, 0, n - 1).astype(xp.int64), (p >= 0) & (p <= n - 1)) for p in ps]

    def grid_sample_plan(self, grid, spatial, mode, padding_mode, align_corners):
        xp = self.xp
        d, n, p = len(spatial), grid.shape[0], math.prod(spatial)
        flat = grid.reshape(-1, d)
        axes, pos = [], []
        for a in range(d):
            c = flat[:, d - 1 - a]
            u, du = self._gs_source(
                c, spatial[a], padding_mode, align_corners, pad=mode != "bicubic"
            )
            f = xp.rint(u) if mode == "nearest" else xp.floor(u)
            axes.append((du, u - du * c - f))
            pos.append(self._gs_positions(f, spatial[a], mode, padding_mode, align_corners))
        strides = [math.prod(spatial[a + 1 :]) for a in range(d)]
        base = xp.repeat(xp.arange(n) * p, flat.shape[0] // max(n, 1))
        taps = []
        for ks in itertools.product(*[range(len(q)) for q in pos]):
            row, ok = base, True
            for a, k in enumerate(ks):
                row = row + pos[a][k][0] * strides[a]
                ok = ok & pos[a][k][1]
            taps.append((xp.where(ok, row, n * p), ks))
        return axes, taps

    def _gs_weights(self, grid, axes, mode):
        """Per spatial axis, the weights of its taps and their derivatives in ``u``, at the
        fractional positions ``t = slope * c + offset`` of the plan."""
        d = len(axes)
        flat = grid.reshape(-1, d)
        out = []
        for a, (du, b) in enumerate(axes):
            t = flat[:, d - 1 - a] * du + b
            if mode == "nearest":
                out.append(((1,), (0,)))
            elif mode == "bilinear":
                out.append(((1 - t, t), (-1, 1)))
            else:
                out.append(_cubic_weights(t))
        return out

    def _rows(self, a):
        """``(N, C, *S)`` as its channels-last rows ``(N prod(S) + 1, C)``, the last a row
        of zeros (what taps outside the input read)."""
        xp = self.xp
        n, ch = a.shape[:2]
        p = math.prod(a.shape[2:])
        rows = xp.zeros((n * p + 1, ch), dtype=a.dtype)
        xp.copyto(rows[:-1].reshape(n, p, ch), xp.moveaxis(a.reshape(n, ch, p), 1, 2))
        return rows

    def grid_sample(self, x, grid, mode, padding_mode, align_corners):
        xp = self.xp
        if x.dtype.itemsize < 4:  # half types: positions and sums in float32
            return self.grid_sample(
                x.astype(xp.float32), grid.astype(xp.float32), mode, padding_mode, align_corners
            ).astype(x.dtype)
        n, ch = x.shape[:2]
        q = math.prod(grid.shape[1:-1])
        out = xp.zeros((n * q, ch), dtype=x.dtype)
        if x.size and out.size:
            rows = self._rows(x)
            axes, taps = self.grid_sample_plan(grid, x.shape[2:], mode, padding_mode, align_corners)
            ws = self._gs_weights(grid, axes, mode)
            for row, ks in taps:
                v = xp.take(rows, row, axis=0)
                w = math.prod(ws[a][0][k] for a, k in enumerate(ks))
                out += v if isinstance(w, int) else v * w.astype(x.dtype)[:, None]
        out = xp.moveaxis(out.reshape(n, q, ch), 2, 1)
        return xp.ascontiguousarray(out).reshape((n, ch) + grid.shape[1:-1])

    def grid_sample_backward(
        self, g, x, grid, mode, padding_mode, align_corners, input_grad, grid_grad
    ):
        xp = self.xp
        if x.dtype.itemsize < 4:  # half types: positions and sums in float32
            f = xp.float32
            gx, gg = self.grid_sample_backward(
                g.astype(f),
                x.astype(f),
                grid.astype(f),
                mode,
                padding_mode,
                align_corners,
                input_grad,
                grid_grad,
            )
            return (
                None if gx is None else gx.astype(x.dtype),
                None if gg is None else gg.astype(grid.dtype),
            )
        n, ch = x.shape[:2]
        d = grid.ndim - 2
        gx = xp.zeros(x.size + ch, dtype=x.dtype) if input_grad else None
        q = math.prod(grid.shape[1:-1])
        gc = [xp.zeros(n * q, dtype=grid.dtype) for _ in range(d)]
        if g.size and x.size:
            axes, taps = self.grid_sample_plan(grid, x.shape[2:], mode, padding_mode, align_corners)
            ws = self._gs_weights(grid, axes, mode)
            grows = self._rows(g)[:-1]
            rows = self._rows(x) if grid_grad and mode != "nearest" else None
            chans = xp.arange(ch)
            for row, ks in taps:
                w = [ws[a][0][k] for a, k in enumerate(ks)]
                if input_grad:  # scatter-add, element-wise (1-d ufunc.at is the fast one)
                    wk = math.prod(w)
                    v = grows if isinstance(wk, int) else grows * wk.astype(g.dtype)[:, None]
                    self._ufunc_at(xp.add, gx, (row[:, None] * ch + chans).ravel(), v.ravel())
                if rows is not None:
                    gv = (grows * xp.take(rows, row, axis=0)).sum(axis=1)
                    for a, k in enumerate(ks):
                        gc[a] += gv * ws[a][1][k] * math.prod(w[:a] + w[a + 1 :])
            gc = [gc[a] * axes[a][0] for a in range(d)]
        if input_grad:  # drop the zero row's sums (taps outside the input)
            gx = xp.moveaxis(gx[: x.size].reshape(n, math.prod(x.shape[2:]), ch), 2, 1)
            gx = xp.ascontiguousarray(gx).reshape(x.shape)
        ggrid = None
        if grid_grad:  # grid[..., 0] is the last spatial axis
            ggrid = xp.stack(gc[::-1], axis=-1).reshape(grid.shape)
        return gx, ggrid
