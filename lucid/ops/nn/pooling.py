"""Pooling ops (max, average, adaptive, unpool), one fused node each.

Parameters reach ``dispatch`` normalised by :mod:`lucid.nn.functional.pooling`: ``kernel``,
``stride`` and ``dilation`` tuples of one int per spatial dim, ``padding`` one ``(lo, hi)``
pair per spatial dim, where ``hi`` includes the extra end padding that ``ceil_mode`` needs.
Max pooling keeps which kernel element of each window is the maximum (``saves_extra``);
the gradient writes each output gradient there, and in graph mode that write is
:class:`~lucid.ops.nn.conv.Col2imBackward` of a masked gradient, so max pooling is twice
differentiable. Adaptive max pooling keeps flat indices and scatters into them
(:class:`MaxUnpoolBackward` in graph mode, whose own gradient is a gather).
"""

from __future__ import annotations

from ..core._formula import const
from ..core.base import MultiOutputOp, Op, UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []

_KEEP = AmpPolicy.KEEP_INPUT


@register
class MaxPoolBackward(MultiOutputOp):
    r"""Autograd node for N-d max pooling: ``(values, argmax)``, one fused op.

    Keeps, per window, which kernel element is the maximum (``argmax``, one byte per
    output; ``saves_extra``, also the second output): the gradient routes each
    :math:`g_o` to it. Nothing else is saved, so an in-place op on the output afterwards
    is fine.

    Math
    ----
    .. math:: y_{n,c,o} = \max_k x_{n,c,\,o s + k d - l}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{n,c,i}} =
              \sum_{o,k:\; o s + k d - l = i} [\mathrm{argmax}_o = k]\, g_{n,c,o}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"max_pool"``, ``AmpPolicy.KEEP_INPUT``; two outputs, only the values
        differentiable (``argmax`` is window-local; :class:`MaxPoolIndicesBackward` makes
        PyTorch's flat indices of it); ``kernel``, ``stride``, ``padding`` (pairs),
        ``dilation`` are keyword params.
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``argmax``.

    Notes
    -----
    Backends: ``be.max_pool`` pads with :math:`-\infty` (the dtype's minimum for
    integers) and scans the kernel elements in order, as PyTorch: an element replaces
    the running maximum (and its index, by integer arithmetic) where it is greater or
    NaN, so the first of equal maxima and the last NaN are chosen; NaN in a window is
    its maximum. Windows that don't overlap (2x2 / stride 2) are first copied into
    contiguous per-kernel-element planes (no larger than the input), which the scan
    reads about twice as fast as stride-2 views. Gradient: ``be.max_pool_backward``,
    one strided write per kernel element of :math:`g\,[\mathrm{argmax} = k]` (an add
    where windows overlap, no zeroing where they tile the input); in graph mode
    :class:`Col2imBackward` of :math:`g` times the constant one-hot of ``argmax``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("max_pool", 1, _KEEP, output_arity=2, differentiable_outputs=(0,))
    saves_extra = ("argmax",)

    @staticmethod
    def dispatch(be, x, kernel, stride, padding, dilation):
        vals, arg = be.max_pool(x, kernel, stride, padding, dilation)
        return vals, arg, arg

    def grad(self, F, g, x, out):
        g = g[0]
        p = self.params
        return F.max_pool_backward(
            g,
            const(self.extra["argmax"], g),
            self.in_meta[0][0][2:],
            p["kernel"],
            p["stride"],
            p["padding"],
            p["dilation"],
        )


@register
class MaxPoolIndicesBackward(UnaryOp):
    r"""PyTorch's max-pool indices from :class:`MaxPoolBackward`'s window-local
    ``argmax``: the flat spatial index in the input of each window's maximum.

    Not differentiable (integer result); records nothing.

    Math
    ----
    .. math:: \mathrm{idx}_{n,c,o} = \mathrm{flat}(o s + k d - l), \quad
              k = \mathrm{argmax}_{n,c,o}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"max_pool_indices"``, ``AmpPolicy.KEEP_INPUT``, ``differentiable=False``,
        internal (it serves ``return_indices``); ``in_spatial``, ``kernel``, ``stride``,
        ``padding``, ``dilation`` are keyword params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.max_pool_indices``: a table of each kernel element's flat offset,
    looked up and added to each window's base (per dim and clipped into the input when
    there is padding). int64, as PyTorch.
    """

    __slots__ = ()
    schema_v1 = OpSchema("max_pool_indices", 1, _KEEP, internal=True, differentiable=False)

    @staticmethod
    def dispatch(be, argmax, in_spatial, kernel, stride, padding, dilation):
        return be.max_pool_indices(argmax, in_spatial, kernel, stride, padding, dilation)


@register
class AdaptiveMaxPoolBackward(MultiOutputOp):
    r"""Autograd node for N-d adaptive max pooling to ``out_spatial``: ``(values,
    indices)``, one fused op.

    Keeps the flat spatial index of each maximum (``saves_extra``), as
    :class:`MaxPoolBackward`.

    Math
    ----
    .. math:: y_{n,c,o} = \max_{i \in W_o} x_{n,c,i}, \quad
              W_o = [\lfloor o L / O \rfloor, \lceil (o + 1) L / O \rceil) \text{ per dim},
              \qquad \frac{\partial \mathcal{L}}{\partial x_{n,c,i}} =
              \sum_{o:\ \arg\max_o = i} g_{n,c,o}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"adaptive_max_pool"``, ``AmpPolicy.KEEP_INPUT``; two outputs, the values
        differentiable; ``out_spatial`` is a keyword param.
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``indices``.

    Notes
    -----
    Backends: ``be.adaptive_max_pool`` gathers every window (padded to the longest by
    repeating its last element) with one advanced index and takes the argmax over them.
    Windows may overlap (:math:`L` not a multiple of :math:`O`), so the gradient is a
    scatter-add (``be.pool_scatter``; :class:`MaxUnpoolBackward` in graph mode).
    """

    __slots__ = ()
    schema_v1 = OpSchema("adaptive_max_pool", 1, _KEEP, output_arity=2, differentiable_outputs=(0,))
    saves_extra = ("indices",)

    @staticmethod
    def dispatch(be, x, out_spatial):
        vals, idx = be.adaptive_max_pool(x, out_spatial)
        return vals, idx, idx

    def grad(self, F, g, x, out):
        g = g[0]
        return F.pool_scatter(g, const(self.extra["indices"], g), self.in_meta[0][0][2:], True)


@register
class MaxUnpoolBackward(Op):
    r"""Autograd node for max unpooling: zeros of spatial shape ``out_spatial`` with each
    :math:`x_{n,c,o}` put at the flat spatial index ``indices[n, c, o]``.

    Saves the indices (the second, integer input) for the gradient, a gather.

    Math
    ----
    .. math:: y_{n,c,\,\mathrm{idx}_{n,c,o}} = x_{n,c,o}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{n,c,o}} = g_{n,c,\,\mathrm{idx}_{n,c,o}}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"max_unpool"``, ``AmpPolicy.KEEP_INPUT``; inputs ``(x, indices)``;
        ``out_spatial`` and ``accumulate`` (add values at equal indices rather than keep
        one: the max-pool gradient in graph mode) are keyword params.
    saves_input : tuple
        ``((1,), ())``: the indices, when ``x`` needs a gradient.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.pool_scatter`` (a write, or for ``accumulate`` a scatter-add) and
    ``be.pool_gather`` (``take_along_axis``) for the gradient. Indices must lie in
    ``[0, prod(out_spatial))``; with repeated indices and ``accumulate`` False one of the
    values is kept (PyTorch leaves which one unspecified too).
    """

    __slots__ = ()
    schema_v1 = OpSchema("max_unpool", 1, _KEEP, input_arity=2)
    saves_input = ((1,), ())

    @staticmethod
    def dispatch(be, x, indices, out_spatial, accumulate):
        return be.pool_scatter(x, indices, out_spatial, accumulate)

    def grad(self, F, g, x, indices, out):
        return F.pool_gather(g, indices), None


@register
class AvgPoolBackward(UnaryOp):
    r"""Autograd node for N-d average pooling, one fused op.

    Keeps the divisor of each window (``saves_extra``; a number for ``divisor_override``):
    the gradient spreads :math:`g_o / D_o` over the window and needs nothing else.

    Math
    ----
    .. math:: y_{n,c,o} = \frac{1}{D_o} \sum_k x_{n,c,\,o s + k - l}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{n,c,i}} =
              \sum_{o,k:\; o s + k - l = i} \frac{g_{n,c,o}}{D_o}

    with :math:`D_o` the ``divisor_override``, or the product over dims of the window
    length clipped to the padded input (``count_include_pad``) or to the input.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"avg_pool"``, ``AmpPolicy.KEEP_INPUT``; ``kernel``, ``stride``, ``padding``
        (pairs, ceil mode's extra included), ``limit`` (pairs: the region the divisor
        counts, around the input) and ``divisor_override`` are keyword params.
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``divisor``.

    Notes
    -----
    Backends: ``be.avg_pool`` sums one strided slice of the zero-padded input per kernel
    element and divides by ``be.pool_divisor`` (separable: an outer product of per-dim
    counts); half inputs accumulate in float32. Gradient: ``be.avg_pool_backward``
    (``col2im`` of the broadcast :math:`g / D`); in graph mode :class:`Col2imBackward`
    of it.
    """

    __slots__ = ()
    schema_v1 = OpSchema("avg_pool", 1, _KEEP)
    saves_extra = ("divisor",)

    @staticmethod
    def dispatch(be, x, kernel, stride, padding, limit, divisor_override):
        spatial = x.shape[2:]
        out = tuple(
            (s + lo + hi - k) // st + 1
            for s, k, st, (lo, hi) in zip(spatial, kernel, stride, padding)
        )
        div = (
            divisor_override
            if divisor_override is not None
            else be.pool_divisor(spatial, out, kernel, stride, padding, limit)
        )
        return be.avg_pool(x, kernel, stride, padding, div), div

    def grad(self, F, g, x, out):
        p = self.params
        return F.avg_pool_backward(
            g, self.in_meta[0][0][2:], p["kernel"], p["stride"], p["padding"], self.extra["divisor"]
        )


def _adaptive_equation(n, backward):
    """The einsum of adaptive average pooling over ``n`` dims with one averaging matrix per
    dim: ``ab ijk, xi, yj, zk -> ab xyz`` (and its adjoint)."""
    ins, outs = "ijk"[:n], "xyz"[:n]
    mats = ",".join(o + i for o, i in zip(outs, ins))
    if backward:
        return f"ab{outs},{mats}->ab{ins}"
    return f"ab{ins},{mats}->ab{outs}"


@register
class AdaptiveAvgPoolBackward(UnaryOp):
    r"""Autograd node for N-d adaptive average pooling to ``out_spatial``, one fused op.

    Saves nothing: the op is linear and separable, :math:`y = x \times_1 A_1 \cdots
    \times_n A_n` with one constant averaging matrix per dim, so its gradient is the same
    product with the transposed matrices.

    Math
    ----
    .. math:: (A_j)_{o,i} = \frac{[i \in W_o]}{|W_o|}, \quad
              W_o = [\lfloor o L_j / O_j \rfloor, \lceil (o + 1) L_j / O_j \rceil), \qquad
              \frac{\partial \mathcal{L}}{\partial x} = g \times_1 A_1^{\top} \cdots
              \times_n A_n^{\top}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"adaptive_avg_pool"``, ``AmpPolicy.KEEP_INPUT``; ``out_spatial`` is a keyword
        param.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.einsum`` with the matrices of ``be.adaptive_avg_matrix``
    (contractions by GEMM), in the input's dtype (float32 matrices and arithmetic for
    half inputs). Global pooling (``out_spatial`` all ones) is a mean over the spatial
    dims (float32 accumulation for half inputs) forward; its backward the same
    contraction. Graph mode: the einsum op, the matrices constants.
    """

    __slots__ = ()
    schema_v1 = OpSchema("adaptive_avg_pool", 1, _KEEP)

    @staticmethod
    def dispatch(be, x, out_spatial):
        if all(o == 1 for o in out_spatial) and all(x.shape[2:]):  # global: one mean
            return be.mean(x, tuple(range(2, x.ndim)), True)
        mats = [be.adaptive_avg_matrix(s, o, x.dtype) for s, o in zip(x.shape[2:], out_spatial)]
        return be.einsum(_adaptive_equation(len(out_spatial), False), x, *mats)

    def grad(self, F, g, x, out):
        be = self.be
        shape, dt = self.in_meta[0]
        mats = [
            const(be.adaptive_avg_matrix(s, o, dt.np), g)
            for s, o in zip(shape[2:], self.params["out_spatial"])
        ]
        return F.einsum(_adaptive_equation(len(mats), True), g, *mats)
