r"""Normalisation ops (batch, instance, layer, group, RMS norm): fused forward and analytic
backward.

Every norm is one node computing

.. math:: \hat x = (x - \mu)\, r, \quad r = (\sigma^2 + \epsilon)^{-1/2}, \quad
          y = \hat x\, w + b

with the statistics :math:`\mu, \sigma^2` taken over the norm's ``axes`` (or, in batch and
instance norm's evaluation mode, the running statistics). They differ only in their
*layout* ``(view, axes, paxes, wshape)``: the shape the input is viewed as (group norm's
``(N, G, C/G, S)``, else None), the statistics' dims, the dims the affine parameters
broadcast over (their gradients are summed there) and the shape ``w``/``b`` are viewed as.
The forward keeps :math:`\mu` and :math:`r` (``saves_extra``), so the eager backward
(``be.norm_backward``) reads them instead of recomputing; the graph-mode backward
(``graph_ns.norm_backward``) recomputes them from :math:`x` with Lucid ops, so the
gradient is differentiable again. The public wrappers are in
:mod:`lucid.nn.functional.normalization`.
"""

from __future__ import annotations

from ...autograd.grad_mode import STATE
from ..core.base import Op
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []

_FP32 = AmpPolicy.FORCE_FP32


def _shaped(a, shape):
    """Array or Tensor ``a`` with ``shape`` (a reshape costs microseconds on CuPy even
    when the shape is already right)."""
    return a if a.shape == shape else a.reshape(shape)


class _NormalizeBackward(Op):
    """The shared dispatch and gradient of the norms (see the module doc).

    Inputs ``(x)``, ``(x, w)`` or ``(x, w, b)`` (a bias without a weight comes with a
    constant weight of ones). Params: ``layout``, ``eps``, ``center`` (subtract the mean;
    False for RMS norm), ``use_input_stats`` (statistics from ``x``; False: from
    ``running``), ``running`` (``(running_mean, running_var)`` arrays updated in place
    with ``momentum`` when the statistics come from ``x``, or None).
    """

    __slots__ = ()
    saves_input = ((0, 1), (0,), ())  # gx needs x and w; gw needs x; gb nothing
    saves_extra = ("mean", "rstd")

    @staticmethod
    def dispatch(
        be, x, *wb, layout, eps, center=True, use_input_stats=True, running=None, momentum=0.0
    ):
        view, axes, paxes, wshape = layout
        xv = x if view is None else x.reshape(view)
        w = _shaped(wb[0], wshape) if wb else None
        b = _shaped(wb[1], wshape) if len(wb) > 1 else None
        if use_input_stats and running is None:
            y, mean, rstd = be.norm_forward(xv, axes, center, w, b, eps)
            return _shaped(y, x.shape), mean, rstd
        if use_input_stats and center and xv.size:
            y, mean, rstd = be.norm_train(xv, axes, w, b, eps, running[0], running[1], momentum)
            return _shaped(y, x.shape), mean, rstd
        if use_input_stats:
            mean, var = be.norm_moments(xv, axes, center)
        else:
            mean = None
            if center:  # (a backward's copy: a training step may update the running one)
                mean = be.copy(running[0]) if STATE.grad_enabled else running[0]
                mean = _shaped(mean, wshape)
            var = running[1].reshape(wshape)
        y, rstd = be.norm_normalize(xv, mean, var, w, b, eps)
        return _shaped(y, x.shape), mean, rstd

    def grad(self, F, g, x, *rest):
        p = self.params
        view, axes, paxes, wshape = p["layout"]
        n_in = len(self.in_meta)
        need = self.needs_input_grad + (False,) * (3 - n_in)
        w = rest[0] if n_in > 1 and rest[0] is not None else None
        if view is not None:
            g = g.reshape(view)
        if x is None:  # only the bias wants a gradient: x was not saved
            gx = gw = None
            gb = F.sum(g, paxes, True)
        else:
            if view is not None:
                x = x.reshape(view)
            if w is not None:
                w = _shaped(w, wshape)
            e = self.extra
            gx, gw, gb = F.norm_backward(
                g,
                x,
                w,
                e["mean"],
                e["rstd"],
                axes,
                paxes,
                p["eps"],
                p.get("use_input_stats", True),
                need,
            )
        out = [None if gx is None else _shaped(gx, self.in_meta[0][0])]
        for i, gp in ((1, gw), (2, gb))[: n_in - 1]:
            out.append(None if gp is None else _shaped(gp, self.in_meta[i][0]))
        return tuple(out)


_DOC_ATTRS = """
    Attributes
    ----------
    schema_v1 : OpSchema
        ``"{name}"``, ``AmpPolicy.FORCE_FP32`` (half inputs compute their statistics in
        float32 under autocast; without it, half inputs still accumulate in float32 and
        keep their dtype).
    saves_input : tuple
        :math:`x` (and :math:`w`) for the input's gradient, :math:`x` for the weight's,
        nothing for the bias's; ``saves_extra``: ``mean`` and ``rstd`` of the forward.
    saves_output : bool
        False.
"""


@register
class BatchNormBackward(_NormalizeBackward):
    __doc__ = (
        r"""Autograd node for batch norm over ``(N, C, *)``: statistics per channel
    over the batch and spatial dims; keeps the batch mean and :math:`r` for the backward.

    Math
    ----
    .. math:: \mu_c = \frac1n \sum_{i,s} x_{ics}, \quad
              \sigma^2_c = \frac1n \sum_{i,s} (x_{ics} - \mu_c)^2, \quad
              y = \hat x\, w_c + b_c

    .. math:: \frac{\partial \mathcal{L}}{\partial x} = r\,w\big(g - \bar g -
              \hat x\,\overline{g \hat x}\big), \quad
              \frac{\partial \mathcal{L}}{\partial w} = \sum_{i,s} g \hat x, \quad
              \frac{\partial \mathcal{L}}{\partial b} = \sum_{i,s} g

    (in evaluation mode :math:`\mu, \sigma^2` are the running statistics, constants, and
    :math:`\partial\mathcal{L}/\partial x = r\,w\,g`).
    """
        + _DOC_ATTRS.format(name="batch_norm")
        + r"""
    Notes
    -----
    Backends: ``be.norm_moments`` then ``be.norm_normalize``; in training mode
    ``be.running_stats_update`` lerps the running mean and the *unbiased* variance
    :math:`\sigma^2 n / (n - 1)` in place with ``momentum``, as PyTorch. The backward
    (``be.norm_backward``) reuses the weight gradient's sums as its means: two full-size
    reductions. On the CPU the statistics, the normalisation and the backward run block by
    block of the batch (about 256 KiB of :math:`x` a block), so the centred block and the
    other temporaries stay in cache and each full-size operand is read once per pass. An
    empty batch gives an empty output and leaves the running statistics alone.
    """
    )

    __slots__ = ()
    schema_v1 = OpSchema("batch_norm", 1, _FP32, input_arity=-1)


@register
class InstanceNormBackward(_NormalizeBackward):
    __doc__ = (
        r"""Autograd node for instance norm over ``(N, C, *)``: statistics per sample
    and channel over the spatial dims; keeps their mean and :math:`r` for the backward.

    Math
    ----
    .. math:: \mu_{ic} = \frac1n \sum_s x_{ics}, \quad y = \hat x\, w_c + b_c, \quad
              \frac{\partial \mathcal{L}}{\partial x} = r\big(\hat g - \overline{\hat g} -
              \hat x\,\overline{\hat g \hat x}\big), \quad \hat g = g\,w_c

    with means over the spatial dims; the weight and bias gradients sum over the batch and
    spatial dims.
    """
        + _DOC_ATTRS.format(name="instance_norm")
        + r"""
    Notes
    -----
    The batch norm kernels with the statistics' dims ``(2, ...)``: PyTorch's reshape to
    ``(1, N C, *)`` without the copy. With running statistics, the per-sample means and
    unbiased variances are averaged over the batch before the momentum update, as PyTorch;
    ``use_input_stats=False`` normalises with the running statistics (constants).
    """
    )

    __slots__ = ()
    schema_v1 = OpSchema("instance_norm", 1, _FP32, input_arity=-1)


@register
class LayerNormBackward(_NormalizeBackward):
    __doc__ = (
        r"""Autograd node for layer norm over the trailing ``normalized_shape`` dims;
    keeps the mean and :math:`r` of each normalised slice for the backward.

    Math
    ----
    .. math:: \hat x = (x - \mu)\, r, \quad y = \hat x\, w + b, \quad
              \frac{\partial \mathcal{L}}{\partial x} = r\big(\hat g - \overline{\hat g} -
              \hat x\,\overline{\hat g \hat x}\big), \quad \hat g = g\,w

    with means over the normalised dims; :math:`\partial\mathcal{L}/\partial w =
    \sum g \hat x` and :math:`\partial\mathcal{L}/\partial b = \sum g` over the leading dims.
    """
        + _DOC_ATTRS.format(name="layer_norm")
        + r"""
    Notes
    -----
    Backends: ``be.norm_forward`` (generically ``be.norm_moments``, a two-pass mean and
    biased variance, stable for inputs far from zero, then ``be.norm_normalize``; one fused
    kernel on CUDA), ``be.norm_backward``. Half inputs compute in float32.
    """
    )

    __slots__ = ()
    schema_v1 = OpSchema("layer_norm", 1, _FP32, input_arity=-1)


@register
class GroupNormBackward(_NormalizeBackward):
    __doc__ = (
        r"""Autograd node for group norm: ``(N, C, *)`` viewed as
    ``(N, G, C/G, S)``, statistics per sample and group; keeps their mean and :math:`r`.

    Math
    ----
    .. math:: \mu_{ng} = \frac{1}{(C/G) S} \sum_{c \in g, s} x_{ncs}, \quad
              y = \hat x\, w_c + b_c, \quad
              \frac{\partial \mathcal{L}}{\partial x} = r\big(\hat g - \overline{\hat g} -
              \hat x\,\overline{\hat g \hat x}\big), \quad \hat g = g\,w_c

    with means over each group; the affine gradients sum over the batch and spatial dims.
    """
        + _DOC_ATTRS.format(name="group_norm")
        + r"""
    Notes
    -----
    The layer norm kernels on the ``(N, G, C/G, S)`` view (a reshape; a copy only for a
    non-contiguous input), with ``w``/``b`` viewed as ``(1, G, C/G, 1)``.
    """
    )

    __slots__ = ()
    schema_v1 = OpSchema("group_norm", 1, _FP32, input_arity=-1)


@register
class RmsNormBackward(_NormalizeBackward):
    __doc__ = (
        r"""Autograd node for RMS norm over the trailing ``normalized_shape`` dims
    (no centring); keeps :math:`r` for the backward.

    Math
    ----
    .. math:: r = \Big(\frac1n \sum x^2 + \epsilon\Big)^{-1/2}, \quad y = x\, r\, w,
              \quad \frac{\partial \mathcal{L}}{\partial x} = r\big(\hat g -
              \hat x\,\overline{\hat g \hat x}\big), \quad \hat x = x r, \ \hat g = g\,w
    """
        + _DOC_ATTRS.format(name="rms_norm")
        + r"""
    Notes
    -----
    The layer norm kernels with ``center=False``: ``be.norm_moments`` returns the mean
    square and no mean (``extra["mean"]`` is None). ``eps=None`` is resolved by the
    wrapper to the input dtype's machine epsilon, as PyTorch.
    """
    )

    __slots__ = ()
    schema_v1 = OpSchema("rms_norm", 1, _FP32, input_arity=-1)
