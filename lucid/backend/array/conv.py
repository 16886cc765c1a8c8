"""Conv kernels over an array module: im2col over strided views plus batched GEMMs.

A convolution reads its input through an ``as_strided`` window view ``(N, C, *K, *O)`` of
the (zero-padded) input and copies it once into contiguous columns of that layout; the
weight ``(G, C_out/G, C_in/G * K)`` multiplies each sample's ``(G, C_in/G * K, P)``
columns in one batched matmul, whose result is the output ``(N, C_out, *O)`` as it stands
(the bias is added in place). The input gradient is the transposed batched product
followed by ``col2im`` (one clipped strided add per kernel element, straight into the
image); the weight gradient, a sum over the batch, is per-sample GEMMs summed (or, where
their ``(N, C_out, C_in/G * K)`` products would outgrow the columns, one GEMM per group
against channels-first columns ``(G, C_in/G * K, N P)``). Stride-1 "same" convolutions
copy the windows by flat shifts of whole planes, and in 2-D with enough channels build
columns over the kernel's last dim only (one GEMM per kernel row, :meth:`_row_columns`;
on the CPU, for small maps, over the whole batch at once). The CPU's input gradient of
a stride-1 convolution with many channels is the adjoint convolution.
Pooling loops over the kernel elements (a handful), never over the batch or the output
positions.
"""

from typing import Any
import itertools
import math

from ..threads import split


def _out_size(spatial, kernel, stride, padding, dilation):
    return tuple(
        (s + lo + hi - d * (k - 1) - 1) // st + 1
        for s, k, st, (lo, hi), d in zip(spatial, kernel, stride, padding, dilation)
    )


def _half(dt):
    return dt.itemsize == 2 and dt.kind == "f" or dt.name == "bfloat16"


_ALL2 = (slice(None), slice(None))


class XpConv:
    """Implements :class:`ConvKernels` with ``self.xp``."""

    #: The input channels a group from which a stride-1 convolution's input gradient is
    #: the adjoint convolution (:meth:`conv_backward_input`); None: never (the GPU keeps
    #: its transposed GEMM and col2im kernel).
    conv_adjoint_min_channels: Any = None
    #: Whether a row-columns forward and weight gradient of small maps (at most 256
    #: output positions a sample, 4096 in all) merge the batch into their GEMMs
    #: (:meth:`_merged_rows_forward`, :meth:`_merged_rows_weight`): on the CPU one GEMM
    #: per kernel row beats one short GEMM per sample (batch 32, two cores, best of 15:
    #: 3x3 32 -> 64 channels of 16x16 forward 3.6 -> 2.85 ms, weight gradient 3.6 ->
    #: 3.0-3.2 ms; 256 of 14x14 forward even, 36 ms, weight gradient 40 -> 35 ms; larger
    #: maps, whose per-sample GEMMs are long already, lose: forward of 128 of 28x28
    #: 45 -> 48-52 ms, 64 of 56x56 68 -> 78 ms). False on the GPU.
    conv_merge_rows = False

    # -- helpers ------------------------------------------------------------------------

    def _padded(self, x, padding, value=0):
        """``x`` with ``padding`` (pairs per spatial dim) of ``value`` around its spatial
        dims (``x`` itself when there is none). A negative ``hi`` (a transposed
        convolution's ``output_padding`` beyond its padding) pads nothing: the windows,
        counted with it, never reach that far."""
        if not any(lo or hi > 0 for lo, hi in padding):
            return x
        shape = x.shape[:2] + tuple(
            s + lo + max(hi, 0) for s, (lo, hi) in zip(x.shape[2:], padding)
        )
        out = self.xp.full(shape, value, dtype=x.dtype)
        out[_ALL2 + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[2:], padding))] = x
        return out

    def _windows(self, xp_, kernel, stride, dilation, out):
        """The view ``(N, C, *K, *O)`` of the windows of the padded input ``xp_``."""
        st = xp_.strides
        sp = st[2:]
        return self.xp.lib.stride_tricks.as_strided(
            xp_,
            xp_.shape[:2] + tuple(kernel) + tuple(out),
            st[:2]
            + tuple(s * d for s, d in zip(sp, dilation))
            + tuple(s * t for s, t in zip(sp, stride)),
        )

    @staticmethod
    def _window_slices(kk, stride, dilation, out):
        """The strided slices of the padded input that kernel element ``kk`` reads."""
        return _ALL2 + tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(kk, dilation, stride, out)
        )

    # -- convolution ----------------------------------------------------------------------

    @staticmethod
    def _channels_first(n):
        """The axes that take ``(N, C, *K, *O)`` to ``(C, *K, N, *O)``."""
        return (1,) + tuple(range(2, 2 + n)) + (0,) + tuple(range(2 + n, 2 + 2 * n))

    @staticmethod
    def _shifts(spatial, out, kernel, stride, padding, dilation):
        """For stride-1 windows whose output has the input's extent in every dim but the
        first (a "same" convolution): flat output position ``p`` of kernel element ``e``
        reads flat input position ``p + delta_e``, so one contiguous slice per kernel
        element moves whole ``(N, C)`` planes (NumPy's inner loops then run over a plane,
        not over one short row), and only the positions that wrap across an inner dim's
        edge (:meth:`_wrapped`) need fixing. ``[(delta, p0, p1)]`` per kernel element, the
        output positions ``[p0, p1)`` landing inside the input; None when not applicable."""
        if (
            any(s != 1 for s in stride)
            or tuple(out[1:]) != tuple(spatial[1:])
            or not out
            or out[0] <= 0
        ):
            return None
        n = len(spatial)
        flat = [math.prod(spatial[j + 1 :]) for j in range(n)]
        ls, lo_ = math.prod(spatial), math.prod(out)
        plan = []
        for kk in itertools.product(*map(range, kernel)):
            delta = sum((k * d - lo) * f for k, d, (lo, _), f in zip(kk, dilation, padding, flat))
            p0 = min(max(0, -delta), lo_)
            plan.append((delta, p0, max(p0, min(lo_, ls - delta))))
        return plan

    @staticmethod
    def _wrapped(kernel, spatial, padding, dilation, kaxis, saxis, ndim):
        """Index tuples (into an array of ``ndim`` axes whose kernel axes start at ``kaxis``
        and output spatial axes at ``saxis``) of the window elements that a flat shift of
        :meth:`_shifts` takes across an inner dim's edge: they are padding, zero."""
        n = len(kernel)
        res = []
        for j in range(1, n):
            for k in range(kernel[j]):
                off = k * dilation[j] - padding[j][0]
                if off == 0:
                    continue
                bad = (
                    slice(0, min(-off, spatial[j]))
                    if off < 0
                    else slice(max(spatial[j] - off, 0), spatial[j])
                )
                idx = [slice(None)] * ndim
                idx[kaxis + j], idx[saxis + j] = k, bad
                res.append(tuple(idx))
        return res

    def _shifted_columns(self, x, plan, kernel, out, padding, dilation, channels_first):
        """:meth:`_columns` by the flat shifts of :meth:`_shifts`."""
        xp = self.xp
        n = len(kernel)
        nb, c = x.shape[:2]
        lo_, kn = math.prod(out), math.prod(kernel)
        xf = x.reshape(nb, c, -1)
        if channels_first:  # (C, KK, N, L), read from x as (C, N, S)
            col = xp.empty((c,) + tuple(kernel) + (nb,) + tuple(out), dtype=x.dtype)
            colf = col.reshape(c, kn, nb, lo_)
            src = xp.swapaxes(xf, 0, 1)
        else:  # (N, C, KK, L)
            col = xp.empty(x.shape[:2] + tuple(kernel) + tuple(out), dtype=x.dtype)
            colf = xp.swapaxes(col.reshape(nb, c, kn, lo_), 1, 2)  # (N, KK, C, L)
            src = xf
        wrapped = self._wrapped(
            kernel, x.shape[2:], padding, dilation, 1 if channels_first else 2, 2 + n, 2 + 2 * n
        )

        def fill(part):  # the rows [a, b) of the leading axis
            a, b = part
            for e, (delta, p0, p1) in enumerate(plan):
                dst = colf[a:b, e]
                if p1 > p0:
                    dst[..., p0:p1] = src[a:b, ..., p0 + delta : p1 + delta]
                if p0:
                    dst[..., :p0] = 0
                if p1 < lo_:
                    dst[..., p1:] = 0
            for idx in wrapped:
                col[(slice(a, b),) + idx[1:]] = 0

        self.parallel(fill, split(col.shape[0], self.parallel_pieces()))
        return col

    def _columns(self, x, kernel, stride, padding, dilation, channels_first):
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        plan = self._shifts(x.shape[2:], out, kernel, stride, padding, dilation)
        if plan is not None and x.size and len(plan) > 1:  # (a 1x1 kernel: a view)
            return self._shifted_columns(x, plan, kernel, out, padding, dilation, channels_first)
        if any(o <= 0 for o in out):
            shape = x.shape[:2] + tuple(kernel) + tuple(max(o, 0) for o in out)
            col = self.xp.zeros(shape, dtype=x.dtype)
        else:
            col = self._windows(self._padded(x, padding), kernel, stride, dilation, out)
        if channels_first:
            col = self.xp.transpose(col, self._channels_first(len(kernel)))
        return self.xp.ascontiguousarray(col)

    def channel_sum(self, g):
        # the batch first (contiguous rows added), then the spatial dims: half the time of
        # one reduction over (0, 2, ...) on NumPy (0.09 -> 0.04 ms for (32, 64, 16, 16))
        return self.sum(self.sum(g, (0,), False), tuple(range(1, g.ndim - 1)), False)

    def im2col(self, x, kernel, stride, padding, dilation):
        col = self._columns(x, kernel, stride, padding, dilation, False)
        # a 1x1 kernel's windows can already be contiguous: a view of x, not a copy
        return col.copy() if self.xp.may_share_memory(col, x) else col

    def col2im(self, col, in_spatial, stride, padding, dilation):
        """Each kernel element's columns added at their positions in the image, clipped to
        it: no padded accumulator to crop. A kernel element whose positions cover the whole
        image (the centre of a stride-1 "same" convolution) is written rather than added,
        so the result needs no zeroing."""
        xp = self.xp
        n = len(in_spatial)
        kernel, out = col.shape[2 : 2 + n], col.shape[2 + n :]
        dt = col.dtype
        if _half(dt):
            col = col.astype(xp.float32)
        parts, first = [], None
        if col.size:
            for kk in itertools.product(*map(range, kernel)):
                src, dst, full = [], [], True
                for k, s, (lo, _), d, o, size in zip(
                    kk, stride, padding, dilation, out, in_spatial
                ):
                    off = k * d - lo  # position of output 0's element k
                    o0 = max(0, -(off // s))  # first o with o s + off >= 0
                    o1 = min(o, (size - 1 - off) // s + 1)
                    if o1 <= o0:
                        break
                    a = o0 * s + off
                    b = (o1 - 1) * s + off + 1
                    src.append(slice(o0, o1))
                    dst.append(slice(a, b, s))
                    full = full and s == 1 and a == 0 and b == size
                else:
                    part = (_ALL2 + tuple(dst), _ALL2 + kk + tuple(src))
                    if full and first is None:
                        first = part
                    else:
                        parts.append(part)
        shape = col.shape[:2] + tuple(in_spatial)
        if first is None:
            acc = xp.zeros(shape, dtype=col.dtype)
        else:
            acc = xp.empty(shape, dtype=col.dtype)
            acc[...] = col[first[1]]
        for dst, src in parts:
            acc[dst] += col[src]
        return acc.astype(dt, copy=False)

    def _col2im_scratch(self, col, in_spatial, stride, padding, dilation):
        """:meth:`col2im` of columns that may be overwritten (the input-gradient GEMM's
        result): for a "same" stride-1 convolution by the flat shifts of :meth:`_shifts`,
        the window elements that wrap across an inner dim's edge zeroed in ``col`` first."""
        n = len(in_spatial)
        kernel, out = col.shape[2 : 2 + n], col.shape[2 + n :]
        plan = self._shifts(in_spatial, out, kernel, stride, padding, dilation)
        if plan is None or not col.size or len(plan) == 1:
            return self.col2im(col, in_spatial, stride, padding, dilation)
        xp = self.xp
        dt = col.dtype
        if _half(dt):
            col = col.astype(xp.float32)
        for idx in self._wrapped(kernel, in_spatial, padding, dilation, 2, 2 + n, 2 + 2 * n):
            col[idx] = 0
        nb, c = col.shape[:2]
        ls, lo_ = math.prod(in_spatial), math.prod(out)
        colf = col.reshape(nb, c, len(plan), lo_)
        whole = [
            e
            for e, (delta, p0, p1) in enumerate(plan)
            if delta == 0 and p0 == 0 and p1 == lo_ == ls
        ]
        if whole:
            acc = colf[:, :, whole[0]].copy()
        else:
            acc = xp.zeros((nb, c, ls), dtype=col.dtype)
        for e, (delta, p0, p1) in enumerate(plan):
            if p1 > p0 and not (whole and e == whole[0]):
                acc[:, :, p0 + delta : p1 + delta] += colf[:, :, e, p0:p1]
        return acc.reshape((nb, c) + tuple(in_spatial)).astype(dt, copy=False)

    def _grad_channels_first(self, g, groups):
        """``g`` ``(N, C_out, *O)`` as ``(G, C_out/G, N P)``, the GEMM operand."""
        n, co = g.shape[:2]
        p = math.prod(g.shape[2:])
        gt = self.xp.ascontiguousarray(self.xp.swapaxes(g.reshape(n, co, p), 0, 1))
        return gt.reshape(groups, co // groups, n * p)

    # The forward and input-gradient GEMMs run per sample (one batched matmul over N, the
    # weight broadcast): their results are then already ``(N, C, ...)``, with no transpose
    # of the output, of the output gradient or of col2im's result. The weight gradient,
    # a sum over the batch, is per-sample GEMMs summed where their ``(N, C_out, C_g K)``
    # products are no larger than the columns, else one GEMM over channels-first columns
    # ``(G, C_g K, N P)``.

    def _row_out(self, x, kernel, stride, padding, dilation, groups):
        """The output extent where :meth:`_row_columns` applies (a 2-D stride-1
        convolution whose output keeps the input's width, ``C_g K_1 >= 64``, not half:
        half partial sums would round in half precision); None elsewhere."""
        if (
            len(kernel) != 2
            or kernel[0] < 2
            or any(s != 1 for s in stride)
            or _half(x.dtype)
            or not x.size
            or min(min(p) for p in padding) < 0
            or x.shape[1] // groups * kernel[1] < 64
        ):  # (short GEMMs: not worth it)
            return None
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        return out if out[1] == x.shape[3] and out[0] > 0 else None

    def _row_columns(self, x, kernel, stride, padding, dilation, groups):
        """For a convolution of :meth:`_row_out` (a "same" 3x3): columns over the kernel's
        last dim only, ``(N, C, K_1, H_p W)`` (the ``K_1`` shifted copies of the
        row-padded input, a third of the full columns for a 3x3 kernel), and the flat
        offset of each kernel row; kernel row ``k`` of output position ``p`` reads column
        position ``p + offset_k``. None when not applicable."""
        out = self._row_out(x, kernel, stride, padding, dilation, groups)
        if out is None:
            return None
        xr = self._padded(x, (padding[0], (0, 0)))
        col = self._columns(
            xr, (1, kernel[1]), (1, 1), ((0, 0), padding[1]), (1, dilation[1]), False
        )
        w1 = x.shape[3]
        col = col.reshape(x.shape[:2] + (kernel[1], xr.shape[2] * w1))
        return col, [k * dilation[0] * w1 for k in range(kernel[0])], out

    def _rows_forward(self, w, b, rows, n, groups):
        """The forward over :meth:`_row_columns`: one batched GEMM per kernel row, summed."""
        col, offs, out = rows
        co, cg, _, k1 = w.shape
        p = math.prod(out)
        col = col.reshape(n, groups, cg * k1, col.shape[-1])
        y = None
        for k, off in enumerate(offs):
            wk = w[:, :, k].reshape(groups, co // groups, cg * k1)
            part = self.matmul(wk, col[..., off : off + p])
            if y is None:
                y = part
            else:
                y += part
        y = y.reshape((n, co) + tuple(out))
        if b is not None:
            y += b.reshape((co, 1, 1))
        return y

    def _merged_rows(self, n, p):
        """Whether a row-columns convolution with ``n`` samples of ``p`` output positions
        merges the batch into its GEMMs (:attr:`conv_merge_rows`)."""
        return self.conv_merge_rows and p <= 256 and n * p >= 4096

    def _tall_row_columns(self, x, kernel, padding, dilation, groups):
        """:meth:`_row_columns` of the row-padded input laid out channels first as one
        tall image ``(1, C, N H_p, W)``, and ``H_p``, ``W``: output row ``r`` of sample
        ``i`` is tall row ``i H_p + r``; the tall rows past a sample's last output row
        straddle two samples."""
        xr = self.xp.swapaxes(self._padded(x, (padding[0], (0, 0))), 0, 1)
        hp, wd = xr.shape[2:]
        tall = xr.reshape(1, x.shape[1], x.shape[0] * hp, wd)
        return (
            self._row_columns(tall, kernel, (1, 1), ((0, 0), padding[1]), dilation, groups),
            hp,
            wd,
        )

    def _merged_rows_weight(self, g, x, kernel, padding, dilation, groups):
        """The weight gradient over :meth:`_tall_row_columns`: per kernel row one GEMM
        over every sample's positions (``g`` laid out the same way, zero on the rows that
        straddle two samples) instead of per-sample GEMMs summed over the batch."""
        xp = self.xp
        n, co, ho = g.shape[:3]
        cg, k1 = x.shape[1] // groups, kernel[1]
        (col, offs, _), hp, wd = self._tall_row_columns(x, kernel, padding, dilation, groups)
        span = n * hp * wd - offs[-1]  # tall positions of a full output row
        col = col.reshape(groups, cg * k1, n * hp * wd)
        gt = xp.zeros((co, n, hp, wd), dtype=g.dtype)
        gt[:, :, :ho] = xp.swapaxes(g, 0, 1)
        gt = gt.reshape(groups, co // groups, n * hp * wd)[..., :span]
        gw = xp.empty((co, cg) + tuple(kernel), dtype=g.dtype)
        for k, off in enumerate(offs):
            part = self.matmul(gt, xp.swapaxes(col[..., off : off + span], -1, -2))
            gw[:, :, k] = part.reshape(co, cg, k1)
        return gw

    def _merged_rows_forward(self, x, w, b, padding, dilation, groups):
        """:meth:`_rows_forward` with the batch merged into the GEMMs' columns: the
        row-padded input laid out channels first, ``(C, N H_p, W)``, is one tall image, so
        each kernel row is one GEMM over every sample (the ``(K_0 - 1) d_0`` rows that
        straddle two samples are computed and dropped) instead of one short GEMM a
        sample; the output is then moved back to ``(N, C_out, H_o, W)`` once."""
        xp = self.xp
        n = x.shape[0]
        co, k0 = w.shape[0], w.shape[2]
        rows, hp, wd = self._tall_row_columns(x, w.shape[2:], padding, dilation, groups)
        y = self._rows_forward(w, None, rows, 1, groups)[0]  # (C_out, N H_p - span, W)
        ho = hp - dilation[0] * (k0 - 1)
        st = y.strides
        per = xp.lib.stride_tricks.as_strided(y, (co, n, ho, wd), (st[0], hp * st[1], st[1], st[2]))
        out = xp.empty((n, co, ho, wd), dtype=y.dtype)
        out[...] = xp.swapaxes(per, 0, 1)
        if b is not None:
            out += b.reshape((co, 1, 1))
        return out

    def conv_forward(self, x, w, b, stride, padding, dilation, groups):
        n = x.shape[0]
        co, cg = w.shape[:2]
        kernel = w.shape[2:]
        out = self._row_out(x, kernel, stride, padding, dilation, groups)
        if out is not None:  # one GEMM per kernel row, summed
            p = math.prod(out)
            if self._merged_rows(n, p):
                return self._merged_rows_forward(x, w, b, padding, dilation, groups)
            rows = self._row_columns(x, kernel, stride, padding, dilation, groups)
            return self._rows_forward(w, b, rows, n, groups)
        col = self._columns(x, kernel, stride, padding, dilation, False)
        out = col.shape[2 + len(kernel) :]
        ck = cg * math.prod(kernel)
        y = self.matmul(
            w.reshape(groups, co // groups, ck), col.reshape(n, groups, ck, math.prod(out))
        )
        y = y.reshape((n, co) + out)
        if b is not None:
            y += b.reshape((co,) + (1,) * len(out))
        return y

    @staticmethod
    def _adjoint_padding(out, in_spatial, kernel, stride, padding, dilation):
        """For a stride-1 convolution, the padding ``(lo', hi')`` per dim under which the
        convolution of the output gradient with the flipped kernel has the input's extent:
        ``lo' = d (k - 1) - lo``, ``hi' = S - O + d (k - 1) - lo'``. None where the
        stride is not 1 or either would be negative (a crop, not a padding)."""
        if any(s != 1 for s in stride) or not out or any(o <= 0 for o in out):
            return None
        pads = []
        for o, size, k, (lo, _), d in zip(out, in_spatial, kernel, padding, dilation):
            lo2 = d * (k - 1) - lo
            hi2 = size - o + d * (k - 1) - lo2
            if lo2 < 0 or hi2 < 0:
                return None
            pads.append((lo2, hi2))
        return tuple(pads)

    def _adjoint_weight(self, w, groups):
        """The weight of the adjoint convolution: each group's ``(C_out/G, C_g)`` block
        transposed and every kernel dim reversed, ``(C_in, C_out/G, *K)``."""
        co, cg = w.shape[:2]
        kernel = w.shape[2:]
        wf = w[_ALL2 + (slice(None, None, -1),) * len(kernel)]
        wf = self.xp.swapaxes(wf.reshape((groups, co // groups, cg) + kernel), 1, 2)
        return self.xp.ascontiguousarray(wf).reshape((groups * cg, co // groups) + kernel)

    def conv_backward_input(self, g, w, in_spatial, stride, padding, dilation, groups):
        """The transposed product and col2im; for stride 1 the convolution of ``g`` with
        the flipped, group-transposed kernel (:meth:`_adjoint_padding`), which is the same
        sum and runs :meth:`conv_forward`'s kernels: no ``(N, C, *K, *O)`` columns written
        by the GEMM and read back by col2im. Only where each group has at least
        :attr:`conv_adjoint_min_channels` input channels (the adjoint's GEMMs have that
        many rows; on the CPU, with fewer than 64 the per-sample products are short and the
        transposed GEMM is faster). Batch 32, two cores, best
        of 15: 3x3 on 64 channels of 56x56 98 -> 71 ms, 128 of 28x28 70 -> 42 ms, 1x1
        256 -> 64 on 56x56 52 -> 28 ms; 3x3 64 -> 32 channels of 16x16 (kept) 3.3 -> 4.1."""
        least = self.conv_adjoint_min_channels
        pads = (
            None
            if least is None or w.shape[1] < least
            else self._adjoint_padding(
                g.shape[2:], in_spatial, w.shape[2:], stride, padding, dilation
            )
        )
        if pads is not None:
            return self.conv_forward(
                g, self._adjoint_weight(w, groups), None, stride, pads, dilation, groups
            )
        n, co = g.shape[:2]
        out = g.shape[2:]
        cg = w.shape[1]
        kernel = w.shape[2:]
        ck = cg * math.prod(kernel)
        col = self.matmul(
            self.xp.swapaxes(w.reshape(groups, co // groups, ck), 1, 2),
            g.reshape(n, groups, co // groups, math.prod(out)),
        )
        col = col.reshape((n, cg * groups) + tuple(kernel) + tuple(out))
        return self._col2im_scratch(col, in_spatial, stride, padding, dilation)

    def conv_backward_weight(self, g, x, kernel, stride, padding, dilation, groups):
        co = g.shape[1]
        cg = x.shape[1] // groups
        n = g.shape[0]
        p = math.prod(g.shape[2:])
        if (
            self._merged_rows(n, p)
            and self._row_out(x, kernel, stride, padding, dilation, groups) is not None
        ):
            return self._merged_rows_weight(g, x, kernel, padding, dilation, groups)
        rows = (
            self._row_columns(x, kernel, stride, padding, dilation, groups)
            if co // groups <= p
            else None
        )  # (the (N, C_out, C_g K_1) products stay small)
        if rows is not None:  # per kernel row: batched GEMM, batch summed
            col, offs, _ = rows
            col = col.reshape(n, groups, cg * kernel[1], col.shape[-1])
            gg = g.reshape(n, groups, co // groups, p)
            gw = self.xp.empty((co, cg) + tuple(kernel), dtype=g.dtype)
            for k, off in enumerate(offs):
                part = self.matmul(gg, self.xp.swapaxes(col[..., off : off + p], -1, -2))
                gw[:, :, k] = part.sum(0).reshape(co, cg, kernel[1])
            return gw
        ck = cg * math.prod(kernel)
        if co // groups <= p and not _half(g.dtype):
            # per-sample GEMMs, the batch summed: no transposed copy of g (the
            # (N, C_out, C_g K) products are no larger than the columns)
            col = self._columns(x, kernel, stride, padding, dilation, False)
            gw = self.matmul(
                g.reshape(n, groups, co // groups, p),
                self.xp.swapaxes(col.reshape(n, groups, ck, p), -1, -2),
            )
            return gw.sum(0).reshape((co, cg) + tuple(kernel))
        col = self._columns(x, kernel, stride, padding, dilation, True)
        m = g.shape[0] * math.prod(g.shape[2:])
        gw = self.matmul(
            self._grad_channels_first(g, groups), self.xp.swapaxes(col.reshape(groups, ck, m), 1, 2)
        )
        return gw.reshape((co, cg) + tuple(kernel))

    # -- pooling --------------------------------------------------------------------------

    def _flat_index(self, pos, in_spatial):
        """Row-major flat spatial index from one position array per dim."""
        flat = pos[0]
        for p, s in zip(pos[1:], in_spatial[1:]):
            flat = flat * s + p
        return flat

    def max_pool(self, x, kernel, stride, padding, dilation):
        xp = self.xp
        out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        is_float = x.dtype.kind == "f" or _half(x.dtype)
        low = -xp.inf if is_float else xp.iinfo(x.dtype).min
        xpd = self._padded(x, padding, low)
        n, kn = len(kernel), math.prod(kernel)
        if x.size and kn * math.prod(out) <= math.prod(xpd.shape[2:]):
            # windows that don't overlap (2x2 / stride 2): one copy lays the kernel elements
            # out as contiguous planes (K, N, C, *O), no larger than the input, which the
            # scan then reads at full speed instead of through stride-2 views
            win = self._windows(xpd, kernel, stride, dilation, out)
            perm = tuple(range(2, 2 + n)) + (0, 1) + tuple(range(2 + n, 2 + 2 * n))
            views = xp.ascontiguousarray(xp.transpose(win, perm)).reshape(
                (kn,) + x.shape[:2] + tuple(out)
            )
        else:
            views = [
                xpd[self._window_slices(kk, stride, dilation, out)]
                for kk in itertools.product(*map(range, kernel))
            ]
        # one scan in kernel order, as PyTorch's: an element replaces the running maximum
        # where it is greater or NaN (so the first of equal maxima, the last NaN); the
        # index update is arithmetic on a small integer array, cheaper than masked writes
        best = xp.array(views[0], copy=True)
        arg = xp.zeros(best.shape, dtype=xp.int8 if kn < 128 else xp.int32)
        for i in range(1, kn):
            v = views[i]
            upd = v > best
            if is_float:
                upd |= v != v
            xp.maximum(best, v, out=best)  # NaN propagates, as in PyTorch
            arg += upd * (i - arg).astype(arg.dtype, copy=False)
        return best, arg

    def max_pool_indices(self, argmax, in_spatial, kernel, stride, padding, dilation):
        """The flat input index of kernel element ``argmax`` of each window: a per-element
        offset looked up in a table plus the window's base. With padding each dim is
        clipped into the input (a window of -inf only may pick its padding)."""
        xp = self.xp
        spatial, out = in_spatial, argmax.shape[2:]
        n = len(kernel)
        flat_stride = [math.prod(spatial[j + 1 :]) for j in range(n)]
        kk = xp.asarray(list(itertools.product(*map(range, kernel))), dtype=xp.int64)
        kk = kk.reshape(-1, n)
        if not any(lo or hi > 0 for lo, hi in padding):
            lut = (
                kk * xp.asarray([d * f for d, f in zip(dilation, flat_stride)], dtype=xp.int64)
            ).sum(1)
            flat = lut[argmax]
            for j in range(n):
                o = xp.arange(out[j], dtype=xp.int64) * (stride[j] * flat_stride[j])
                flat += o.reshape((out[j],) + (1,) * (n - 1 - j))
            return flat
        flat = None
        for j in range(n):
            o = xp.arange(out[j], dtype=xp.int64) * stride[j] - padding[j][0]
            p = (kk[:, j] * dilation[j])[argmax] + o.reshape((out[j],) + (1,) * (n - 1 - j))
            xp.maximum(p, 0, out=p)
            xp.minimum(p, spatial[j] - 1, out=p)
            if j:
                flat *= spatial[j]
                flat += p
            else:
                flat = p
        return flat

    def max_pool_backward(self, g, argmax, in_spatial, kernel, stride, padding, dilation):
        xp = self.xp
        out = g.shape[2:]
        full = g.shape[:2] + tuple(s + lo + max(hi, 0) for s, (lo, hi) in zip(in_spatial, padding))
        overlap = any(s < d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
        # windows that tile the (padded) input write every position once: no zeroing
        tiled = all(
            d == 1 and s == k and o * s == f
            for k, s, d, o, f in zip(kernel, stride, dilation, out, full[2:])
        )
        acc = (xp.empty if tiled else xp.zeros)(full, dtype=g.dtype)
        for i, kk in enumerate(itertools.product(*map(range, kernel))):
            dst = acc[self._window_slices(kk, stride, dilation, out)]
            if overlap:
                dst += g * (argmax == i)
            else:  # each position is in one window: write, don't add
                xp.multiply(g, argmax == i, out=dst)
        return acc[_ALL2 + tuple(slice(lo, lo + s) for s, (lo, _) in zip(in_spatial, padding))]

    def pool_scatter(self, g, indices, out_spatial, accumulate):
        xp = self.xp
        n, c = g.shape[:2]
        p = math.prod(out_spatial)
        flat = (n, c, math.prod(g.shape[2:]))
        if accumulate:
            res = self.index_add_along(g.reshape(flat), indices.reshape(flat), 2, p)
        else:
            res = xp.zeros((n, c, p), dtype=g.dtype)
            res[
                xp.arange(n).reshape(-1, 1, 1),
                xp.arange(c).reshape(1, -1, 1),
                indices.reshape(flat),
            ] = g.reshape(flat)
        return res.reshape((n, c) + tuple(out_spatial))

    def pool_gather(self, x, indices):
        n, c = x.shape[:2]
        return self.xp.take_along_axis(
            x.reshape(n, c, math.prod(x.shape[2:])),
            indices.reshape(n, c, math.prod(indices.shape[2:])),
            2,
        ).reshape(indices.shape)

    def pool_divisor(self, in_spatial, out_spatial, kernel, stride, padding, limit):
        xp = self.xp
        n = len(kernel)
        div = xp.ones((), dtype=xp.float64)
        for j in range(n):
            start = xp.arange(out_spatial[j]) * stride[j] - padding[j][0]
            end = xp.minimum(start + kernel[j], in_spatial[j] + limit[j][1])
            cnt = end - xp.maximum(start, -limit[j][0])
            div = div[..., None] * cnt.astype(xp.float64)
        return div

    def avg_pool(self, x, kernel, stride, padding, divisor):
        xp = self.xp
        dt = x.dtype
        out = _out_size(x.shape[2:], kernel, stride, padding, (1,) * len(kernel))
        xpd = self._padded(x.astype(xp.float32) if _half(dt) else x, padding)
        acc = None
        for kk in itertools.product(*map(range, kernel)):
            v = xpd[self._window_slices(kk, stride, (1,) * len(kernel), out)]
            acc = xp.array(v, copy=True) if acc is None else xp.add(acc, v, out=acc)
        acc /= xp.asarray(divisor, dtype=acc.dtype) if hasattr(divisor, "shape") else divisor
        return acc.astype(dt) if acc.dtype != dt else acc

    def avg_pool_backward(self, g, in_spatial, kernel, stride, padding, divisor):
        xp = self.xp
        dt = g.dtype
        gf = g.astype(xp.float32) if _half(dt) else g
        gd = gf / (xp.asarray(divisor, dtype=gf.dtype) if hasattr(divisor, "shape") else divisor)
        n = len(kernel)
        col = xp.broadcast_to(
            gd.reshape(g.shape[:2] + (1,) * n + g.shape[2:]),
            g.shape[:2] + tuple(kernel) + g.shape[2:],
        )
        return self.col2im(col, in_spatial, stride, padding, (1,) * n).astype(dt, copy=False)

    def adaptive_windows(self, in_size, out_size):
        xp = self.xp
        o = xp.arange(out_size, dtype=xp.int64)
        start = (o * in_size) // out_size
        end = -((-(o + 1) * in_size) // out_size)
        k = int((end - start).max()) if out_size else 0
        return xp.minimum(start[:, None] + xp.arange(k, dtype=xp.int64), end[:, None] - 1)

    def adaptive_max_pool(self, x, out_spatial):
        xp = self.xp
        n = len(out_spatial)
        wins = [self.adaptive_windows(s, o) for s, o in zip(x.shape[2:], out_spatial)]
        idx = []
        for j, w in enumerate(wins):  # index j at axes (2j, 2j+1) of 2n axes
            shape = [1] * (2 * n)
            shape[2 * j], shape[2 * j + 1] = w.shape
            idx.append(w.reshape(shape))
        g = x[_ALL2 + tuple(idx)]  # (N, C, O0, K0, O1, K1, ...)
        perm = (0, 1) + tuple(range(2, 2 + 2 * n, 2)) + tuple(range(3, 3 + 2 * n, 2))
        g = xp.transpose(g, perm)
        ks = g.shape[2 + n :]
        g = g.reshape(g.shape[: 2 + n] + (math.prod(ks),))
        if g.shape[-1] == 0 or g.size == 0:
            return (xp.zeros(g.shape[:-1], dtype=x.dtype), xp.zeros(g.shape[:-1], dtype=xp.int64))
        arg = xp.argmax(g, axis=-1)
        vals = xp.take_along_axis(g, arg[..., None], -1)[..., 0]
        pos = []
        rest = arg
        for j in reversed(range(n)):
            k = rest % ks[j]
            rest = rest // ks[j]
            o = xp.arange(out_spatial[j]).reshape((out_spatial[j],) + (1,) * (n - 1 - j))
            pos.append(wins[j][o, k])
        return vals, self._flat_index(pos[::-1], x.shape[2:])

    def adaptive_avg_matrix(self, in_size, out_size, npdtype):
        xp = self.xp
        o = xp.arange(out_size, dtype=xp.int64)[:, None]
        start = (o * in_size) // out_size
        end = -((-(o + 1) * in_size) // out_size)
        i = xp.arange(in_size, dtype=xp.int64)
        inside = (i >= start) & (i < end)
        return (inside / (end - start)).astype(xp.float32 if _half(xp.dtype(npdtype)) else npdtype)
