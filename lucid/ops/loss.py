"""Fused class-index losses: cross-entropy (log-softmax and NLL in one pass) and NLL.

The integer ``target`` and the optional per-class ``weight`` reach ``dispatch`` as backend
arrays in the params (they get no gradient, as in PyTorch); the input has its class axis at
1, ``(N, C, d1, ...)``. Their public wrappers are :func:`lucid.nn.functional.cross_entropy`
and :func:`lucid.nn.functional.nll_loss`, which validate shapes and dtypes.
"""

from __future__ import annotations

from .base import UnaryOp
from .registry import register
from .schema import AmpPolicy, OpSchema

__all__ = []


@register
class CrossEntropyBackward(UnaryOp):
    r"""Autograd node for the cross-entropy of logits against class indices, one fused op
    (log-softmax and negative log-likelihood in one pass).

    Saves the input and, from the forward, the log-sum-exp over the classes (``lse``, one
    value per sample): the backward rebuilds the softmax :math:`e^{x - \mathrm{lse}}` in one
    pass instead of keeping the :math:`N \times C` log-probabilities.

    Math
    ----
    .. math:: \ell_n = -\sum_c q_{nc} \log p_{nc}, \qquad p = \mathrm{softmax}(x), \qquad
              q_{nc} = (1 - \varepsilon)\, w_{y_n} [c = y_n] + \tfrac{\varepsilon}{C}\, w_c

    (:math:`q_n = 0` where :math:`y_n` is ``ignore_index``; :math:`\varepsilon` the label
    smoothing, :math:`w` the class weights, all 1 by default), reduced by a sum, a mean
    :math:`\sum_n \ell_n / \sum_n w_{y_n}` or not at all. The gradient:

    .. math:: \frac{\partial \mathcal{L}}{\partial x_{nc}} = s_n \Big(p_{nc} \sum_k q_{nk}
              - q_{nc}\Big)

    with :math:`s_n` the output gradient (per element for ``"none"``), divided by
    :math:`\sum_n w_{y_n}` for ``"mean"``.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cross_entropy"``, ``AmpPolicy.FORCE_FP32`` (exponentials and logs of half inputs
        lose the small probabilities); params ``target``, ``weight`` (arrays),
        ``ignore_index``, ``reduction``, ``label_smoothing``.
    saves_input : bool
        True: the logits :math:`x`.
    saves_output : bool
        False; ``saves_extra``: ``lse``, :math:`\ln\sum_c e^{x_{nc}}` per sample.

    Notes
    -----
    Backends: ``be.cross_entropy`` subtracts the max over the classes before
    exponentiating (no overflow) and gathers the target logit; ``be.cross_entropy_backward``
    writes :math:`s_n \sum_k q_{nk}\, p_n` and subtracts the target's coefficient in place
    (an indexed update through ``grid_index``), so :math:`q` is never materialised. A target outside
    :math:`[0, C)` that is not ignored raises an IndexingError. A ``"mean"`` over no element
    (empty batch or every target ignored) is nan, with a zero gradient, as PyTorch. The
    graph-mode backward (``graph_ns.cross_entropy_backward``) recomputes :math:`p` with the
    softmax op, so the Hessian is exact.
    """

    __slots__ = ()
    schema_v1 = OpSchema("cross_entropy", 1, AmpPolicy.FORCE_FP32)
    saves_input = True
    saves_extra = ("lse",)

    @staticmethod
    def dispatch(be, x, target, weight, ignore_index, reduction, label_smoothing):
        return be.cross_entropy(x, target, weight, ignore_index, reduction, label_smoothing)

    def grad(self, F, g, x, out):
        p = self.params
        return F.cross_entropy_backward(x, self.extra["lse"], g, p["target"], p["weight"],
                                        p["ignore_index"], p["reduction"],
                                        p["label_smoothing"])


@register
class NllLossBackward(UnaryOp):
    r"""Autograd node for the negative log-likelihood of log-probabilities against class
    indices.

    Saves nothing: the gradient is a scatter of the target weights into zeros of the
    input's shape (known from the node's metadata).

    Math
    ----
    .. math:: \ell_n = -w_{y_n}\, x_{n, y_n}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{nc}} = -s_n\, w_{y_n} [c = y_n]

    (0 where :math:`y_n` is ``ignore_index``), :math:`s_n` as in
    :class:`CrossEntropyBackward`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"nll_loss"``, ``AmpPolicy.FORCE_FP32``; params ``target``, ``weight``,
        ``ignore_index``, ``reduction``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``be.nll_loss`` (the target entries, gathered through ``grid_index``) and
    ``be.nll_loss_backward`` (written into zeros at the same positions). Bounds as in
    :class:`CrossEntropyBackward`; a ``"mean"`` over no element is nan with a zero
    gradient. The gradient is linear in :math:`g` and does not depend on :math:`x`: its own
    derivative is 0.
    """

    __slots__ = ()
    schema_v1 = OpSchema("nll_loss", 1, AmpPolicy.FORCE_FP32)

    @staticmethod
    def dispatch(be, x, target, weight, ignore_index, reduction):
        return be.nll_loss(x, target, weight, ignore_index, reduction)

    def grad(self, F, g, x, out):
        p = self.params
        return F.nll_loss_backward(g, p["target"], p["weight"], p["ignore_index"],
                                   p["reduction"], self.in_meta[0][0])
