"""The fused cells of the recurrent layers: one LSTM step and one GRU step as one op each.

``nn.LSTM`` / ``nn.GRU`` (and their cells) compute the gate pre-activations with GEMMs and
hand them to these ops, so one time step records three nodes (the GEMM, a sum, the cell)
instead of a dozen element-wise ones. Each backward recomputes the gate activations from
the saved pre-activations (element-wise, cheaper than keeping them) and is written once,
with backend kernels and operators, so graph mode differentiates it again.
"""

from __future__ import annotations

from ..core.base import MultiOutputOp, Op
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


def _chunks(F, a, n, k):
    """The ``k`` gate blocks of width ``n`` along the last dim of ``a``."""
    return F.split(a, a.ndim - 1, (n,) * k)


@register
class LstmCellBackward(MultiOutputOp):
    r"""Autograd node for one LSTM step from its gate pre-activations, one fused op.

    Saves both inputs (the backward recomputes the four gate activations from the
    pre-activations) and the new cell state (for :math:`\tanh c'`).

    Math
    ----
    With :math:`(a_i, a_f, a_g, a_o)` the four blocks of the pre-activations
    :math:`a = x W_{ih}^\top + b_{ih} + h W_{hh}^\top + b_{hh}` and
    :math:`i, f, o = \sigma(a_{i,f,o})`, :math:`\tilde g = \tanh a_g`:

    .. math:: c' = f c + i \tilde g, \qquad h' = o \tanh c'

    .. math:: \delta = g_{c'} + g_{h'}\, o\, (1 - \tanh^2 c'), \qquad
              \frac{\partial \mathcal{L}}{\partial c} = \delta f

    .. math:: \frac{\partial \mathcal{L}}{\partial a} = \big(\delta \tilde g\, i (1 - i),\;
              \delta c\, f (1 - f),\; \delta i (1 - \tilde g^2),\;
              g_{h'} \tanh c'\, o (1 - o)\big)

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"lstm_cell"``, ``AmpPolicy.KEEP_INPUT`` (element-wise); inputs ``(a, c)`` with
        ``a`` (B, 4H) and ``c`` (B, H); outputs ``(h', c')``.
    saves_input : bool
        True: ``a`` and ``c``.
    saves_output : bool
        True: :math:`c'`.

    Notes
    -----
    Backends: ``be.split``, ``be.sigmoid``, ``be.tanh`` and array arithmetic (NumPy or
    CuPy); the gradient of the pre-activations is one ``be.concatenate`` of the four blocks.
    ``sigmoid`` does not overflow for large :math:`|a|`.
    """

    __slots__ = ()
    schema_v1 = OpSchema("lstm_cell", 1, AmpPolicy.KEEP_INPUT, input_arity=2, output_arity=2)
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, a, c):
        ai, af, ag, ao = _chunks(be, a, c.shape[-1], 4)
        c_new = be.sigmoid(af) * c + be.sigmoid(ai) * be.tanh(ag)
        return be.sigmoid(ao) * be.tanh(c_new), c_new

    def grad(self, F, g, a, c, out):
        gh, gc = g
        ai, af, ag, ao = _chunks(F, a, c.shape[-1], 4)
        i, f, o, gt = F.sigmoid(ai), F.sigmoid(af), F.sigmoid(ao), F.tanh(ag)
        tc = F.tanh(out[1])
        delta = gc + gh * o * (1 - tc * tc)
        da = F.concatenate(
            [
                delta * gt * i * (1 - i),
                delta * c * f * (1 - f),
                delta * i * (1 - gt * gt),
                gh * tc * o * (1 - o),
            ],
            a.ndim - 1,
        )
        return da, delta * f


@register
class GruCellBackward(Op):
    r"""Autograd node for one GRU step from the input's and the hidden state's gate
    projections, one fused op.

    Saves the three inputs: the backward recomputes the gates from them.

    Math
    ----
    With :math:`(x_r, x_z, x_n)` the blocks of :math:`x W_{ih}^\top + b_{ih}` and
    :math:`(h_r, h_z, h_n)` those of :math:`h W_{hh}^\top + b_{hh}`:

    .. math:: r = \sigma(x_r + h_r), \quad z = \sigma(x_z + h_z), \quad
              n = \tanh(x_n + r h_n), \quad h' = n + z (h - n)

    .. math:: \nu = g (1 - z)(1 - n^2), \quad \rho = \nu h_n\, r (1 - r), \quad
              \zeta = g (h - n)\, z (1 - z)

    .. math:: \frac{\partial \mathcal{L}}{\partial x_{rzn}} = (\rho, \zeta, \nu), \qquad
              \frac{\partial \mathcal{L}}{\partial h_{rzn}} = (\rho, \zeta, \nu r), \qquad
              \frac{\partial \mathcal{L}}{\partial h} = g z

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"gru_cell"``, ``AmpPolicy.KEEP_INPUT`` (element-wise); inputs ``(x_g, h_g, h)``
        with ``x_g``, ``h_g`` (B, 3H) and ``h`` (B, H); output ``h'``.
    saves_input : bool
        True: all three.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``be.split``, ``be.sigmoid``, ``be.tanh`` and array arithmetic (NumPy or
    CuPy); the two projection gradients are one ``be.concatenate`` each.
    """

    __slots__ = ()
    schema_v1 = OpSchema("gru_cell", 1, AmpPolicy.KEEP_INPUT, input_arity=3)
    saves_input = True

    @staticmethod
    def dispatch(be, xg, hg, h):
        xr, xz, xn = _chunks(be, xg, h.shape[-1], 3)
        hr, hz, hn = _chunks(be, hg, h.shape[-1], 3)
        n = be.tanh(xn + be.sigmoid(xr + hr) * hn)
        return n + be.sigmoid(xz + hz) * (h - n)

    def grad(self, F, g, xg, hg, h, out):
        xr, xz, xn = _chunks(F, xg, h.shape[-1], 3)
        hr, hz, hn = _chunks(F, hg, h.shape[-1], 3)
        r, z = F.sigmoid(xr + hr), F.sigmoid(xz + hz)
        n = F.tanh(xn + r * hn)
        nu = g * (1 - z) * (1 - n * n)
        rho = nu * hn * r * (1 - r)
        zeta = g * (h - n) * z * (1 - z)
        axis = xg.ndim - 1
        return (
            F.concatenate([rho, zeta, nu], axis),
            F.concatenate([rho, zeta, nu * r], axis),
            g * z,
        )


def fused_lstm_cell(gates, c):
    """``(h', c')`` of one LSTM step from the gate pre-activations ``gates`` (B, 4H) and the
    cell state ``c`` (B, H) (see :class:`LstmCellBackward`)."""
    return LstmCellBackward.apply(gates, c)


def fused_gru_cell(x_gates, h_gates, h):
    """``h'`` of one GRU step from the gate projections of the input and of ``h``, each
    (B, 3H), and ``h`` (B, H) (see :class:`GruCellBackward`)."""
    return GruCellBackward.apply(x_gates, h_gates, h)
