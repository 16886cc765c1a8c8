"""Convolution ops (N-d, transposed, groups, dilation) and im2col / col2im.

Each is one fused node over the backend's conv kernels (:mod:`lucid.backend.interface.conv`:
im2col over a strided window view plus one batched GEMM). Parameters reach ``dispatch``
normalised by :mod:`lucid.nn.functional.conv`: ``stride`` and ``dilation`` tuples of one
int per spatial dim, ``padding`` one ``(lo, hi)`` pair per spatial dim (PyTorch's
``padding="same"`` with an even kernel pads one more at the end), ``groups`` an int.

The gradients are written once: in graph mode (``create_graph=True``) the kernels they call
are these ops again (:mod:`lucid.ops.core.graph_ns`): the input gradient of a convolution is a
transposed convolution, the weight gradient a convolution of the input with the output
gradient, so derivatives of any order are convolutions.
"""

from __future__ import annotations

from ..core.base import Op, UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class ConvolutionBackward(Op):
    r"""Autograd node for the N-d convolution (cross-correlation)
    :math:`y = w \star x + b`, one fused op.

    Saves the input for the weight's gradient and the weight for the input's, only those
    the wanted gradients need (as PyTorch); the bias gradient needs nothing.

    Math
    ----
    .. math:: y_{n,o,p} = b_o + \sum_{c \in G(o)} \sum_k w_{o,c,k}\,x_{n,c,\,p s + k d - l}

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = w \star^{\top} g \ \text{(a
              transposed convolution)}, \qquad
              \frac{\partial \mathcal{L}}{\partial w_{o,c,k}} = \sum_{n,p} g_{n,o,p}\,
              x_{n,c,\,p s + k d - l}, \qquad
              \frac{\partial \mathcal{L}}{\partial b_o} = \sum_{n,p} g_{n,o,p}

    with :math:`s` the stride, :math:`d` the dilation, :math:`l` the leading padding and
    :math:`G(o)` the input channels of output channel :math:`o`'s group.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"convolution"``, ``AmpPolicy.PROMOTE`` (GEMM-bound: autocast computes it in the
        autocast dtype); inputs ``(x, w)`` or ``(x, w, b)`` (``input_arity=-1``);
        ``complex_grad="holomorphic"`` (bilinear: complex inputs take the real formula,
        conjugated around; the CUDA kernels are for float dtypes, complex goes through
        the generic ones).
    saves_input : tuple
        ``((1,), (0,), ())``: ``w`` when ``x`` needs a gradient, ``x`` when ``w`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.conv_forward`` copies the windows of the zero-padded input (an
    ``as_strided`` view) into columns ``(N, C, *K, *O)`` and multiplies each sample's
    ``(G, C_g K, P)`` by the weight ``(G, C_{out}/G, C_g K)`` in one batched matmul (BLAS
    on NumPy, cuBLAS on CuPy), whose result is already ``(N, C_out, *O)``; the bias is
    added in place. ``be.conv_backward_input`` is the transposed batched product and
    ``col2im`` (one clipped strided add per kernel element, straight into the image), or,
    for a stride-1 convolution with at least 64 input channels a group, the convolution
    of the output gradient with the flipped, group-transposed kernel on the CPU (the same
    sum through the forward's kernels, no kernel-sized columns of the gradient);
    ``be.conv_backward_weight`` is per-sample GEMMs against the columns, the batch
    summed (one GEMM per group over channels-first columns ``(G, C_g K, N P)`` where
    the ``(N, C_out, C_g K)`` products would outgrow the columns, and for half inputs);
    the columns are recomputed rather than kept (memory stays that of the input).
    The bias gradient is ``be.channel_sum`` (NumPy: the batch summed first, then the
    spatial dims; CUDA: one reduction kernel).
    A 2-D stride-1 convolution that keeps the width (a "same" 3x3, ``C_g K_1 >= 64``, not
    half) builds columns over the kernel's last dim only (``K_1`` shifted copies of the
    row-padded input: a third of the memory traffic of a 3x3's full columns) and runs one
    batched GEMM per kernel row on a flat-shifted slice of them, summed; its weight
    gradient likewise (per kernel row, the batch summed). On the CPU, for maps of at most
    256 positions, each kernel row's GEMM (forward and weight gradient) spans the whole
    batch (the channels-first input as one tall image) instead of one short GEMM a sample.
    Half inputs multiply in float32 on the CPU. In graph mode the gradient is the
    transposed convolution op and a convolution op (input and output gradient as a batch
    of ``C_g`` images), so it is differentiable again.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "convolution", 1, AmpPolicy.PROMOTE, input_arity=-1, complex_grad="holomorphic"
    )
    saves_input = ((1,), (0,), ())

    @staticmethod
    def dispatch(be, x, w, b=None, *, stride, padding, dilation, groups):
        return be.conv_forward(x, w, b, stride, padding, dilation, groups)

    def grad(self, F, g, x, w, *rest):
        p = self.params
        args = (p["stride"], p["padding"], p["dilation"], p["groups"])
        need = self.needs_input_grad
        gx = F.conv_backward_input(g, w, self.in_meta[0][0][2:], *args) if need[0] else None
        gw = F.conv_backward_weight(g, x, self.in_meta[1][0][2:], *args) if need[1] else None
        if len(need) == 2:
            return gx, gw
        return gx, gw, F.channel_sum(g) if need[2] else None


@register
class ConvTransposeBackward(Op):
    r"""Autograd node for the N-d transposed convolution
    :math:`y = w \star^{\top} x + b`, the adjoint of :class:`ConvolutionBackward` in its
    input, one fused op.

    Saves the input for the weight's gradient and the weight for the input's, only those
    the wanted gradients need.

    Math
    ----
    .. math:: y_{n,c,i} = b_c + \sum_{o,p,k:\; p s + k d - l = i} w_{o,c,k}\,x_{n,o,p}

    (``w`` of shape :math:`(C_{in}, C_{out}/G, K)`); the gradients are the convolution and
    its weight correlation with the roles of ``x`` and ``g`` exchanged:

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = w \star g, \qquad
              \frac{\partial \mathcal{L}}{\partial w_{o,c,k}} = \sum_{n,p} x_{n,o,p}\,
              g_{n,c,\,p s + k d - l}, \qquad
              \frac{\partial \mathcal{L}}{\partial b_c} = \sum_{n,i} g_{n,c,i}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"conv_transpose"``, ``AmpPolicy.PROMOTE``; inputs ``(x, w)`` or ``(x, w, b)``;
        ``out_spatial`` (the output's spatial shape, which ``output_padding`` or
        ``output_size`` choose) is a keyword param; ``complex_grad="holomorphic"``, as
        the convolution.
    saves_input : tuple
        ``((1,), (0,), ())``.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.conv_backward_input`` (the transposed GEMM and ``col2im``), plus the
    bias. Gradients: ``be.conv_forward`` for the input, ``be.conv_backward_weight`` for the
    weight; in graph mode the convolution ops themselves.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "conv_transpose", 1, AmpPolicy.PROMOTE, input_arity=-1, complex_grad="holomorphic"
    )
    saves_input = ((1,), (0,), ())

    @staticmethod
    def dispatch(be, x, w, b=None, *, out_spatial, stride, padding, dilation, groups):
        y = be.conv_backward_input(x, w, out_spatial, stride, padding, dilation, groups)
        if b is not None:
            y = y + b.reshape((-1,) + (1,) * len(out_spatial))
        return y

    def grad(self, F, g, x, w, *rest):
        p = self.params
        args = (p["stride"], p["padding"], p["dilation"], p["groups"])
        need = self.needs_input_grad
        gx = F.conv_forward(g, w, None, *args) if need[0] else None
        gw = F.conv_backward_weight(x, g, self.in_meta[1][0][2:], *args) if need[1] else None
        if len(need) == 2:
            return gx, gw
        return gx, gw, F.channel_sum(g) if need[2] else None


@register
class Im2colBackward(UnaryOp):
    r"""Autograd node for im2col: the sliding windows of ``x`` as columns
    ``(N, C, *K, *O)`` (``F.unfold`` reshapes them to ``(N, C \prod K, L)``).

    Saves nothing: the gradient is col2im, a sum of the column gradients at their
    positions, which needs only shapes.

    Math
    ----
    .. math:: \mathrm{col}_{n,c,k,o} = x_{n,c,\,o s + k d - l}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{n,c,i}} =
              \sum_{k,o:\; o s + k d - l = i} g_{n,c,k,o}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"im2col"``, ``AmpPolicy.KEEP_INPUT`` (a copy); ``kernel``, ``stride``,
        ``padding`` (pairs), ``dilation`` are keyword params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.im2col``, a contiguous copy of an ``as_strided`` window view of the
    zero-padded input; the gradient is ``be.col2im`` (one strided add per kernel element),
    whose graph form is :class:`Col2imBackward`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("im2col", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, kernel, stride, padding, dilation):
        return be.im2col(x, kernel, stride, padding, dilation)

    def grad(self, F, g, x, out):
        p = self.params
        return F.col2im(g, self.in_meta[0][0][2:], p["stride"], p["padding"], p["dilation"])


@register
class Col2imBackward(UnaryOp):
    r"""Autograd node for col2im: columns ``(N, C, *K, *O)`` summed into an image of
    spatial shape ``in_spatial`` (``F.fold``), the adjoint of :class:`Im2colBackward`.

    Saves nothing: the gradient is im2col of the output gradient.

    Math
    ----
    .. math:: x_{n,c,i} = \sum_{k,o:\; o s + k d - l = i} \mathrm{col}_{n,c,k,o}, \qquad
              \frac{\partial \mathcal{L}}{\partial \mathrm{col}_{n,c,k,o}} =
              g_{n,c,\,o s + k d - l}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"col2im"``, ``AmpPolicy.KEEP_INPUT``; ``in_spatial``, ``stride``, ``padding``
        (pairs), ``dilation`` are keyword params.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.col2im``, zeros of the padded shape plus one strided add per kernel
    element, then the padding cropped (positions in the padding are dropped); half inputs
    accumulate in float32. Gradient: ``be.im2col``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("col2im", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, col, in_spatial, stride, padding, dilation):
        return be.col2im(col, in_spatial, stride, padding, dilation)

    def grad(self, F, g, col, out):
        p = self.params
        kernel = self.in_meta[0][0][2 : 2 + len(p["in_spatial"])]
        return F.im2col(g, kernel, p["stride"], p["padding"], p["dilation"])
