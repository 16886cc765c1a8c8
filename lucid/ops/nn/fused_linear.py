r"""A linear layer and its activation as one op: :math:`y = \mathrm{act}(x W^\top + b)`,
ReLU or GELU. Its public wrappers are :func:`lucid.nn.functional.fused_linear_relu` and
:func:`lucid.nn.functional.fused_linear_gelu`."""

from __future__ import annotations

from ..core.base import Op
from .linear import LinearBackward
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class FusedLinearBackward(Op):
    r"""Autograd node for :math:`y = \mathrm{act}(x W^\top + b)` over the last dim of
    ``x``, ``act`` ReLU or GELU (exact, or its tanh approximation): one forward kernel
    call, an analytic backward.

    Saves the inputs (the linear part's gradients need ``W`` and ``x``; graph mode
    recomputes the pre-activation from them) and, for ReLU, its output :math:`y` (the
    mask :math:`y > 0` is that of :math:`z > 0`), for GELU the pre-activation :math:`z`
    the forward computed anyway (``saves_extra``), so no GEMM is repeated.

    Math
    ----
    .. math:: z = x W^\top + b, \qquad y = \mathrm{act}(z), \qquad
              G_z = G \odot \mathrm{act}'(z)

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = G_z W, \qquad
              \frac{\partial \mathcal{L}}{\partial W} = G_{z,2}^\top X_2, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = \sum_n (G_{z,2})_{n\cdot}

    with :math:`\mathrm{ReLU}'(z) = [z > 0]` (0 at 0, as PyTorch),
    :math:`\mathrm{GELU}'(z) = \Phi(z) + z\,\varphi(z)` (the tanh form's derivative with
    ``approximate="tanh"``, see ``GeluBackward``), :math:`X_2`, :math:`G_{z,2}` the
    operands with their leading dims flattened.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fused_linear"``, ``AmpPolicy.PROMOTE`` (GEMM-bound: under autocast the inputs
        are cast to the autocast dtype, the casts recorded); inputs ``(x, w)`` or
        ``(x, w, b)`` (``input_arity=-1``); params ``activation`` (``"relu"`` or
        ``"gelu"``) and ``approximate`` (``"none"`` or ``"tanh"``).
    saves_input : bool
        True: ``x``, ``W`` (and ``b``).
    saves_output : bool
        True: :math:`y` (read by the ReLU backward); ``saves_extra``: ``pre``, :math:`z`,
        for GELU.

    Notes
    -----
    Backends: ``be.linear_act``. The CPU: the GEMM of ``be.linear`` (BLAS, bias added in
    place), then ReLU in place on its result or ``be.gelu``. CUDA: one cuBLASLt GEMM with
    the activation in its epilogue where cuBLASLt takes it — ``RELU_BIAS`` for ReLU;
    ``GELU_AUX_BIAS`` for the tanh GELU (cuBLASLt's GELU is the tanh form), writing
    :math:`z` to the auxiliary buffer as the backward's saved input (where ``out``
    is a multiple of 8, cuBLASLt's rule for that buffer's leading dimension; not in
    float64, where that epilogue is accurate to about 1e-8 only); exact GELU is
    the ``BIAS`` GEMM then the GELU kernel; other cases (dtypes, non-2-D problems) take
    the CPU's order on the device. The backward: ``be.relu_backward`` or
    ``be.gelu_backward`` for :math:`G_z`, then the GEMMs of ``LinearBackward``'s gradient
    (its formula, called on this node with :math:`G_z`: ``linear_weight_grad`` with cuBLASLt's bias
    gradient epilogue). Graph mode (``create_graph=True``) recomputes :math:`z` with
    recorded ops, so the gradient is differentiable again. PyTorch's counterpart is
    ``torch._addmm_activation`` (ReLU, tanh GELU); the values follow
    ``F.relu(F.linear(...))`` and ``F.gelu(F.linear(...), approximate=...)``.
    """

    __slots__ = ()
    schema_v1 = OpSchema("fused_linear", 1, AmpPolicy.PROMOTE, input_arity=-1)
    saves_input = True
    saves_output = True
    saves_extra = ("pre",)

    @staticmethod
    def dispatch(be, x, w, b=None, activation="relu", approximate="none"):
        return be.linear_act(x, w, b, activation, approximate)

    def grad(self, F, g, x, w, *rest):
        b, out = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0])
        if self.params["activation"] == "relu":
            gz = F.relu_backward(out, g)
        else:
            z = self.extra["pre"] if F is self.be else _pre_activation(F, x, w, b)
            gz = F.gelu_backward(z, g, self.params["approximate"])
        return LinearBackward.grad(self, F, gz, x, w, *([b] if b is not None else []))


def _pre_activation(F, x, w, b):
    """:math:`z = x W^\\top + b` with recorded ops (graph mode)."""
    z = F.matmul(x, F.swapaxes(w, 0, 1))
    return z if b is None else z + b
