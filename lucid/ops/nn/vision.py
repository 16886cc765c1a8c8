r"""Spatial resampling ops: ``interpolate`` (separable resampling) and
``grid_sample``, each one fused node with an analytic backward (``area`` mode is
adaptive average pooling, :mod:`lucid.ops.nn.pooling`).

``interpolate`` is linear in its input: along each spatial axis the output line is
:math:`W x` for a fixed matrix :math:`W` (``be.interpolate``), so the backward is
:math:`W^\top g` along each axis (``be.interpolate_backward``) and saves nothing; the
backward's own gradient is the forward again. ``grid_sample`` saves its input and grid: the
input's gradient scatters :math:`g` onto the taps each output point read, the grid's
gradient differentiates the tap weights. The public wrappers are in
:mod:`lucid.nn.functional.vision`.
"""

from __future__ import annotations

from ..core.base import Op, UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class InterpolateBackward(UnaryOp):
    r"""Autograd node for ``interpolate(x, size, mode, align_corners, scales)`` on
    ``(N, C, *S)``. Saves nothing: the op is linear, its backward needs only the shapes.

    Math
    ----
    Along spatial axis :math:`a`, :math:`y = W_a x` over the lines of that axis
    (:math:`W_a` of shape ``size[a] x S[a]``, see ``Backend.interpolate``):

    .. math:: y = x \times_1 W_1 \cdots \times_d W_d, \qquad
              \frac{\partial \mathcal{L}}{\partial x} = g \times_1 W_1^\top \cdots
              \times_d W_d^\top

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"interpolate"``, ``AmpPolicy.KEEP_INPUT`` (a weighted copy, memory-bound).
        Params: ``size`` (output spatial size), ``mode`` (``"nearest"``,
        ``"nearest-exact"``, ``"linear"``, ``"cubic"``, antialiased ``"linear-aa"`` and
        ``"cubic-aa"``), ``align_corners``,
        ``scales`` (the user's scale factor per axis, or ``None``).
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.interpolate`` builds :math:`W_a` from PyTorch's source-index rules
    (nearest's float32 :math:`\lfloor j r \rfloor`, nearest-exact's
    :math:`\lfloor (j + 1/2) r \rfloor`, linear's clamped half-pixel source, bicubic's
    :math:`A = -0.75` with border clamping; an unchanged linear axis is copied; the
    antialiased modes' scaled, normalised filters) and applies
    it with one GEMM per axis for lines of up to 128 points; longer lines, nearest modes,
    integer inputs and inputs holding inf or nan gather their taps instead (exact, and a
    non-finite value reaches only the outputs that read it). The backward is a GEMM with
    :math:`W_a^\top` per axis, or for long lines a 1-d ``add.at`` of each tap's weighted
    gradient: each output's gradient lands on its taps. Nearest modes keep integer dtypes.
    """

    __slots__ = ()
    schema_v1 = OpSchema("interpolate", 1, AmpPolicy.KEEP_INPUT)

    @staticmethod
    def dispatch(be, x, size, mode, align_corners, scales):
        return be.interpolate(x, size, mode, align_corners, scales)

    def grad(self, F, g, x, out):
        p = self.params
        return F.interpolate_backward(
            g, self.in_meta[0][0][2:], p["mode"], p["align_corners"], p["scales"]
        )


@register
class InterpolateGradBackward(UnaryOp):
    r"""Autograd node of the backward of ``interpolate``: :math:`W^\top g` along each
    spatial axis. Internal. Saves nothing: it is linear, and its own gradient is the
    forward ``interpolate`` of the incoming gradient.

    Math
    ----
    .. math:: y = g \times_1 W_1^\top \cdots \times_d W_d^\top, \qquad
              \frac{\partial \mathcal{L}}{\partial g} = \bar g \times_1 W_1 \cdots
              \times_d W_d

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"interpolate_backward"``, ``AmpPolicy.KEEP_INPUT``, internal. Params:
        ``in_size`` (the forward input's spatial size) and the forward's ``mode``,
        ``align_corners``, ``scales``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.interpolate_backward``, one GEMM per spatial axis with the transposed
    resampling matrix (for lines of up to 128 input points; longer ones scatter each tap's
    weighted gradient with a 1-d ``add.at``); half types accumulate in float32.
    """

    __slots__ = ()
    schema_v1 = OpSchema("interpolate_backward", 1, AmpPolicy.KEEP_INPUT, internal=True)

    @staticmethod
    def dispatch(be, g, in_size, mode, align_corners, scales):
        return be.interpolate_backward(g, in_size, mode, align_corners, scales)

    def grad(self, F, gg, g, out):
        p = self.params
        return F.interpolate(gg, self.in_meta[0][0][2:], p["mode"], p["align_corners"], p["scales"])


@register
class GridSampleBackward(Op):
    r"""Autograd node for ``grid_sample(x, grid, mode, padding_mode, align_corners)``.

    Saves the input and the grid: the grid says where each output read (the input's
    gradient), the values read multiply the weights' derivatives (the grid's); the input's
    gradient also takes the input's shape from it, as PyTorch saves both.

    Math
    ----
    For output point :math:`q` with taps :math:`k` at input positions :math:`p_k(q)` and
    weights :math:`w_k(q)` (products of per-axis linear, nearest or cubic weights of the
    source position :math:`u_a(c_a)` of grid coordinate :math:`c_a`):

    .. math:: y_{:,q} = \sum_k w_k(q)\, x_{:, p_k(q)}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{:,p}} = \sum_{q,k:\, p_k(q) = p}
              w_k(q)\, g_{:,q}, \qquad
              \frac{\partial \mathcal{L}}{\partial c_a(q)} = u_a'(c_a) \sum_k
              \frac{\partial w_k}{\partial u_a} \langle g_{:,q}, x_{:,p_k(q)} \rangle

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"grid_sample"``, ``AmpPolicy.FORCE_FP32`` (half precision cannot address pixels
        of a large image exactly); not deterministic on CUDA (the input's gradient
        scatter-adds with atomics), deterministic on the CPU. Params: ``mode`` (``"bilinear"``,
        ``"nearest"``, ``"bicubic"``), ``padding_mode`` (``"zeros"``, ``"border"``,
        ``"reflection"``), ``align_corners``.
    saves_input : bool
        True: the input and the grid.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.grid_sample`` computes each axis' taps on the whole grid, copies the
    input once channels-last and gathers whole channel rows per tap combination (4 for
    bilinear 2-d, 8 for 3-d, 16 for bicubic); a tap outside the input (``"zeros"``) reads an
    appended row of zeros, so it reads no value (an inf elsewhere does not leak in).
    ``be.grid_sample_backward`` scatters with a 1-d ``add.at`` and gathers the values again
    for the grid's gradient. :math:`u'` is 0 where the padding clamps (at the border itself
    too, as PyTorch) and flips sign where reflection mirrors; nearest sampling (rounding
    half to even) has a zero grid gradient. The graph-mode backward composes the same sums
    from ``index_select`` and ``index_add`` over the channels-last rows, with the tap
    positions of ``be.grid_sample_plan`` as constants: it is differentiable again.
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "grid_sample",
        1,
        AmpPolicy.FORCE_FP32,
        input_arity=2,
        deterministic=False,
        nondeterministic_on=("cuda",),
        determinism_note="The input's gradient scatter-adds with atomics on CUDA.",
    )
    saves_input = True

    @staticmethod
    def dispatch(be, x, grid, mode, padding_mode, align_corners):
        return be.grid_sample(x, grid, mode, padding_mode, align_corners)

    def grad(self, F, g, x, grid, out):
        p = self.params
        need = self.needs_input_grad
        return F.grid_sample_backward(
            g, x, grid, p["mode"], p["padding_mode"], p["align_corners"], need[0], need[1]
        )
