"""Fused losses: cross-entropy (log-softmax and NLL in one pass) and NLL over class
indices; binary cross-entropy of probabilities, element-wise.

The integer ``target`` and the optional per-class ``weight`` reach ``dispatch`` as backend
arrays in the params (they get no gradient, as in PyTorch); the input has its class axis at
1, ``(N, C, d1, ...)``. Their public wrappers are :func:`lucid.nn.functional.cross_entropy`
and :func:`lucid.nn.functional.nll_loss`, which validate shapes and dtypes. Binary
cross-entropy is an element-wise op of the probabilities and the target; its wrapper
:func:`lucid.nn.functional.binary_cross_entropy` applies the weight and the reduction.
"""

from __future__ import annotations

import struct

from ..core.base import BinaryOp, UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

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
        return F.cross_entropy_backward(
            x,
            self.extra["lse"],
            g,
            p["target"],
            p["weight"],
            p["ignore_index"],
            p["reduction"],
            p["label_smoothing"],
        )


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
        return F.nll_loss_backward(
            g, p["target"], p["weight"], p["ignore_index"], p["reduction"], self.in_meta[0][0]
        )


# Binary cross-entropy's floors, PyTorch's: each log at -100, x(1 - x) at 1e-12 rounded
# to float32 (PyTorch's constant is a C float, in every dtype).
_BCE_LOG_FLOOR = -100.0
_BCE_EPS = struct.unpack("f", struct.pack("f", 1e-12))[0]


@register
class BinaryCrossEntropyBackward(BinaryOp):
    r"""Autograd node for the element-wise binary cross-entropy of probabilities :math:`x`
    against targets :math:`y`, one fused op with PyTorch's clamps (so :math:`x = 0` or 1
    gives a finite loss and gradient).

    Saves both inputs for the input's gradient and the input for the target's.

    Math
    ----
    .. math:: \ell = (y - 1) \max(\mathrm{log1p}(-x), -100) - y \max(\log x, -100)

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = g\,\frac{x - y}
              {\max\big((1 - x)\,x,\ 10^{-12}\big)}, \qquad
              \frac{\partial \mathcal{L}}{\partial y} = -g \log\frac{x}{1 - x}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"binary_cross_entropy"``, ``AmpPolicy.FORCE_FP32`` (logs of half inputs), two
        inputs of one floating dtype.
    saves_input : tuple
        :math:`x` and :math:`y` if :math:`x` needs a gradient; :math:`x` if :math:`y` does.
    saves_output : bool
        False.

    Notes
    -----
    PyTorch's kernel term for term (``binary_cross_entropy`` and its backward in
    ``aten/src/ATen/native/Loss.cpp``), in the inputs' dtype: ``log``, ``log1p``,
    ``maximum`` of the backend, the floor :math:`10^{-12}` rounded to float32 as PyTorch's
    C ``float`` constant is (:math:`1 - 4 \cdot 10^{-9}` of it). At :math:`x = 1` the loss
    of :math:`y = 1` is 0 and its gradient 0; at :math:`x = 0` with :math:`y = 1` the
    gradient is :math:`-10^{12} g`. The target's gradient is :math:`\mp\infty` at
    :math:`x = 1` and 0. In float16 the floor rounds to 0, so the gradient at the
    boundaries is nan or inf, as PyTorch's. The graph-mode backward is the same formula on
    Lucid ops: its own derivative agrees with PyTorch's double backward inside
    :math:`(0, 1)` (to :math:`10^{-10}`); where :math:`(1 - x)x` is clamped PyTorch's uses
    :math:`(x + \epsilon)^2 (1 - x + \epsilon)^2` and Lucid's the clamp's (zero)
    derivative, both of order :math:`10^{12}` and more.
    """

    __slots__ = ()
    schema_v1 = OpSchema("binary_cross_entropy", 1, AmpPolicy.FORCE_FP32, input_arity=2)
    saves_input = ((0, 1), (0,))

    @staticmethod
    def dispatch(be, x, y):
        log_x = be.maximum(be.log(x), _BCE_LOG_FLOOR)
        log_1mx = be.maximum(be.log1p(-x), _BCE_LOG_FLOOR)
        return (y - 1) * log_1mx - y * log_x

    def grad(self, F, g, x, y, out):
        want_x, want_y = (e is not None for e in self.next_edges)
        return (
            g * (x - y) / F.maximum((1 - x) * x, _BCE_EPS) if want_x else None,
            -g * F.log(x / (1 - x)) if want_y else None,
        )
