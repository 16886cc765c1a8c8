"""Activation and loss kernels over an array module (see :class:`LossKernels`)."""

import math

from ...errors import ArgumentError
from .special import _quiet

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


class XpLoss:
    """Loss kernels on ``self.xp``."""

    # -- fused activations ---------------------------------------------------------------

    def _gelu_tanh(self, x):
        return self.xp.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x))

    def _gelu_cdf(self, x):
        r""":math:`\Phi(x) = \frac12(1 + \mathrm{erf}(x/\sqrt2))`; float32 through the
        float32 erf (a few ulp, three times faster than the float64 one)."""
        u = x * _SQRT_HALF
        e = self._erf_f32(u) if x.dtype == self.xp.float32 else self.erf(u)
        e += 1.0
        e *= 0.5
        return e

    def gelu(self, a, approximate):
        x = self._f32(a)
        if approximate == "tanh":
            out = 0.5 * x * (1.0 + self._gelu_tanh(x))
        else:
            out = x * self._gelu_cdf(x)
        return out.astype(a.dtype, copy=False)

    def gelu_backward(self, a, g, approximate):
        xp = self.xp
        x = self._f32(a)
        if approximate == "tanh":
            t = self._gelu_tanh(x)
            d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * (
                _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * x * x))
        else:
            d = self._gelu_cdf(x) + x * (_INV_SQRT_2PI * xp.exp(-0.5 * x * x))
        return (self._f32(g) * d).astype(g.dtype, copy=False)

    def silu(self, a):
        x = self._f32(a)
        return (x * self.sigmoid(x)).astype(a.dtype, copy=False)

    def silu_backward(self, a, g):
        x = self._f32(a)
        s = self.sigmoid(x)
        return (self._f32(g) * (s * (1.0 + x * (1.0 - s)))).astype(g.dtype, copy=False)

    def check_range(self, a, low, high, message):
        if a.size and not bool(((a >= low) & (a <= high)).all()):
            raise ArgumentError(message)

    # -- class-index losses --------------------------------------------------------------

    def nll_target_weights(self, target, weight, num_classes, ignore_index, npdtype):
        xp = self.xp
        ignored = target == ignore_index
        safe = xp.where(ignored, 0, target)
        self.check_index_bounds(safe, 0, num_classes)
        if weight is None:
            wt = (~ignored).astype(npdtype)
        else:
            wt = xp.where(ignored, 0, weight.astype(npdtype, copy=False)[safe]).astype(
                npdtype, copy=False)
        return wt, safe

    def class_onehot(self, target, num_classes, npdtype):
        xp = self.xp
        iota = xp.arange(num_classes).reshape((1, num_classes) + (1,) * (target.ndim - 1))
        return (xp.expand_dims(target, 1) == iota).astype(npdtype)

    def _reduce_loss(self, loss, wt, reduction):
        if reduction == "none":
            return loss
        s = loss.sum()
        return s if reduction == "sum" else s / wt.sum()

    def _loss_scale(self, g, wt, reduction):
        """:math:`s_n` of the backward: ``g`` per element, or broadcast, or over :math:`W`
        (0 where :math:`W = 0`: every element is ignored and gets no gradient)."""
        if reduction != "mean":
            return g
        w = wt.sum()
        return g / self.xp.where(w == 0, 1, w)

    def cross_entropy(self, a, target, weight, ignore_index, reduction, label_smoothing):
        xp = self.xp
        x = self._f32(a)
        n_cls = x.shape[1]
        wt, safe = self.nll_target_weights(target, weight, n_cls, ignore_index, x.dtype)
        with _quiet(xp):
            m = xp.amax(x, axis=1, keepdims=True) if n_cls else xp.zeros_like(x[:, :1])
            m = xp.where(xp.isfinite(m), m, 0)
            lse = m + xp.log(xp.sum(xp.exp(x - m), axis=1, keepdims=True))
            picked = x[self.grid_index(xp.expand_dims(safe, 1), 1)]
            loss = (lse - picked)[:, 0] * wt
            if label_smoothing:
                nlp = lse - x
                if weight is not None:
                    nlp = nlp * weight.astype(x.dtype).reshape((1, n_cls) + (1,) * (x.ndim - 2))
                smooth = xp.where(target == ignore_index, 0, nlp.sum(axis=1))
                loss = (1.0 - label_smoothing) * loss + (label_smoothing / n_cls) * smooth
            out = self._reduce_loss(loss, wt, reduction)
        return xp.asarray(out).astype(a.dtype, copy=False), lse[:, 0]

    def cross_entropy_backward(self, a, lse, g, target, weight, ignore_index, reduction,
                               label_smoothing):
        xp = self.xp
        x = self._f32(a)
        n_cls = x.shape[1]
        wt, safe = self.nll_target_weights(target, weight, n_cls, ignore_index, x.dtype)
        s = self._loss_scale(self._f32(g), wt, reduction)
        eps = label_smoothing
        with _quiet(xp):
            p = xp.exp(x - xp.expand_dims(lse, 1))
            hot = (1.0 - eps) * s * wt                       # the coefficient at the target
            if eps:
                valid = (target != ignore_index).astype(x.dtype)
                wsum = n_cls if weight is None else weight.astype(x.dtype).sum()
                spread = (eps / n_cls) * s * valid           # times w_c at every class
                qsum = hot + spread * wsum
                grad = p * xp.expand_dims(qsum, 1)
                wc = 1.0 if weight is None else \
                    weight.astype(x.dtype).reshape((1, n_cls) + (1,) * (x.ndim - 2))
                grad -= xp.expand_dims(spread, 1) * wc
            else:
                grad = p * xp.expand_dims(xp.broadcast_to(hot, wt.shape), 1)
            # one target per sample: a plain indexed update, no duplicate positions
            grad[self.grid_index(xp.expand_dims(safe, 1), 1)] -= xp.expand_dims(
                xp.broadcast_to(hot, wt.shape), 1)
        return grad.astype(a.dtype, copy=False)

    def nll_loss(self, a, target, weight, ignore_index, reduction):
        xp = self.xp
        x = self._f32(a)
        wt, safe = self.nll_target_weights(target, weight, x.shape[1], ignore_index, x.dtype)
        with _quiet(xp):
            loss = -x[self.grid_index(xp.expand_dims(safe, 1), 1)][:, 0] * wt
            out = self._reduce_loss(loss, wt, reduction)
        return xp.asarray(out).astype(a.dtype, copy=False)

    def nll_loss_backward(self, g, target, weight, ignore_index, reduction, shape):
        xp = self.xp
        gg = self._f32(g)
        wt, safe = self.nll_target_weights(target, weight, shape[1], ignore_index, gg.dtype)
        with _quiet(xp):
            coef = -xp.broadcast_to(self._loss_scale(gg, wt, reduction) * wt, wt.shape)
        grad = xp.zeros(shape, gg.dtype)
        grad[self.grid_index(xp.expand_dims(safe, 1), 1)] = xp.expand_dims(coef, 1)
        return grad.astype(g.dtype, copy=False)

