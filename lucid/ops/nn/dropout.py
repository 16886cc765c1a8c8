"""Dropout: one fused op for the whole family (element-wise or channel-wise, plain or alpha).

The mask is drawn from a :class:`lucid.Generator` (the default generator of the input's
device unless one is given), so ``lucid.manual_seed`` makes a run reproducible. The node
keeps the backend's key to it (``saves_extra``): the mask itself, or on a counter-based
generator (CUDA) the seed and counter from which the backward recomputes it. The public
wrappers are in :mod:`lucid.nn.functional.dropout`.
"""

from __future__ import annotations

from ...random import generator_for
from ..core._formula import const
from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []


@register
class DropoutBackward(UnaryOp):
    r"""Autograd node for dropout :math:`y = x \cdot m + s`: keeps the key to the mask
    :math:`m` drawn by the forward, the one thing its gradient needs.

    Math
    ----
    .. math:: k \sim \mathrm{Bernoulli}(1 - p), \qquad
              m = \frac{k}{1 - p},\ s = 0 \ \text{(dropout)}, \qquad
              m = a k,\ s = a \alpha' (k - 1 + p) \ \text{(alpha dropout)}

    with :math:`\alpha' = 1.7580993408473766` and
    :math:`a = ((\alpha'^2 p + 1)(1 - p))^{-1/2}`;
    :math:`\frac{\partial \mathcal{L}}{\partial x} = m\, g`.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"dropout"``, ``AmpPolicy.KEEP_INPUT`` (element-wise, memory-bound).
    saves_input, saves_output : bool
        False, False; ``saves_extra``: ``key``, what ``be.dropout_backward`` applies the
        mask with: the mask (of the noise shape: the input's, or ``(N, C, 1, ...)`` for
        channel-wise dropout, broadcasting against it) or a counter-based backend's
        regeneration key.

    Notes
    -----
    Backends: plain dropout runs ``be.dropout_forward`` (``(y, key)``) and, for its
    gradient, ``be.dropout_backward(g, key)``; alpha dropout runs ``be.dropout_noise``
    (``x * mask + shift``) and keeps the mask as its key. The CPU draws :math:`k` from the
    generator's ``rng`` as uniform samples compared with :math:`p` (float32 for half
    inputs) and keys the mask; CUDA runs element-wise dropout as one Philox kernel keyed
    by (seed, offset), and the backward regenerates the same keep bits (no mask in
    memory). The graph-mode gradient is :math:`g` times the mask as a constant
    (``be.dropout_backward`` of ones). The wrappers return the input itself when not
    training or for :math:`p = 0`; :math:`p = 1` gives zeros. The same seed gives the same
    mask on one backend, not PyTorch's.
    """

    __slots__ = ()
    schema_v1 = OpSchema("dropout", 1, AmpPolicy.KEEP_INPUT)
    saves_extra = ("key",)

    @staticmethod
    def dispatch(be, x, p, alpha, noise_shape, rng):
        if not alpha:
            return be.dropout_forward(rng, x, p, noise_shape)
        mask, shift = be.dropout_noise(rng, noise_shape, p, alpha, x.dtype)
        y = x * mask
        if shift is not None:
            y += shift
        return y, mask

    def grad(self, F, g, x, out):
        key = self.extra["key"]
        if F is self.be:
            return F.dropout_backward(g, key)
        return g * const(self.be.dropout_backward(self.be.ones_like(g._data), key), g)


def dropout_op(x, p, alpha, noise_shape, generator=None):
    """Run :class:`DropoutBackward` on ``x`` with the given noise shape, drawing from
    ``generator`` (default: the device's)."""
    rng = generator_for(generator, x._device, "dropout")._impl
    return DropoutBackward.apply(x, p=p, alpha=alpha, noise_shape=tuple(noise_shape), rng=rng)
