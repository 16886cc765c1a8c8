"""Transforms: invertible maps :math:`y = f(x)` with :math:`\\log|\\det J_f(x)|`, used by
:class:`~lucid.distributions.TransformedDistribution` and the constraint registries."""

from typing import Any
import math

from .._tensor import Size, Tensor, as_tensor
from ..dtypes import finfo
from ..ops import arange, broadcast_shapes, diagonal, full_like, sigmoid, softmax, zeros, zeros_like
from .. import ops as _ops
from ..nn import functional as F

from . import constraints
from .distribution import sum_rightmost
from .. import errors

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "ComposeTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """An invertible map from ``domain`` to ``codomain``; ``inv`` is the inverse transform.

    ``log_abs_det_jacobian(x, y)`` is :math:`\\log|\\det \\partial y/\\partial x|`, reduced
    over the transform's event dims (``domain.event_dim``).
    """

    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real
    sign = 1

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._cached = None

    @property
    def event_dim(self):
        return self.domain.event_dim

    @property
    def inv(self):
        return _InverseTransform(self)

    def __call__(self, x):
        if self._cache_size and self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        return self._inverse(y)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of ``transform``: its ``_inverse`` as the call, its Jacobian negated."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    domain = property(lambda self: self._inv.codomain)
    codomain = property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    inv = property(lambda self: self._inv)

    def __call__(self, x):
        return self._inv._inv_call(x)

    def _inverse(self, y):
        return self._inv(y)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = Transform.__hash__


class ComposeTransform(Transform):
    """:math:`f = f_n \\circ \\dots \\circ f_1` for ``parts = [f_1, ..., f_n]``; the log
    determinant is the sum of the parts', each reduced to the composite's event dims."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        dom, event_dim = self.parts[0].domain, self.parts[-1].codomain.event_dim
        for p in reversed(self.parts):
            event_dim += p.domain.event_dim - p.codomain.event_dim
        if event_dim > dom.event_dim:
            dom = constraints.independent(dom, event_dim - dom.event_dim)
        return dom

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        cod, event_dim = self.parts[-1].codomain, self.parts[0].domain.event_dim
        for p in self.parts:
            event_dim += p.codomain.event_dim - p.domain.event_dim
        if event_dim > cod.event_dim:
            cod = constraints.independent(cod, event_dim - cod.event_dim)
        return cod

    @property
    def inv(self):
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def _call(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def _inverse(self, y):
        for p in reversed(self.parts):
            y = p.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        total, event_dim = 0.0, self.domain.event_dim
        for p in self.parts:
            y_p = p(x)
            ladj = p.log_abs_det_jacobian(x, y_p)
            total = total + sum_rightmost(ladj, event_dim - p.domain.event_dim)
            event_dim += p.codomain.event_dim - p.domain.event_dim
            x = y_p
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return shape

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = Transform.__hash__


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """:math:`y = e^x`, :math:`\\log|dy/dx| = x`."""

    domain, codomain, bijective = constraints.real, constraints.positive, True

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """:math:`y = x^p` on the positive reals, :math:`\\log|dy/dx| = \\log|p\\,y/x|`."""

    domain, codomain, bijective = constraints.positive, constraints.positive, True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    @property
    def sign(self):
        return (
            self.exponent.sign()
            if isinstance(self.exponent, Tensor)
            else (1 if self.exponent > 0 else -1)
        )

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(
            _ops.all(as_tensor(self.exponent == other.exponent)).item()
        )

    __hash__ = Transform.__hash__


class SigmoidTransform(Transform):
    """:math:`y = 1/(1+e^{-x})`, :math:`\\log|dy/dx| = -\\mathrm{softplus}(-x)
    - \\mathrm{softplus}(x)`."""

    domain, codomain, bijective = constraints.real, constraints.unit_interval, True

    def _call(self, x):
        eps = finfo(x.dtype).eps
        return sigmoid(x).clamp(min=eps, max=1 - eps)

    def _inverse(self, y):
        eps = finfo(y.dtype).eps
        y = y.clamp(min=eps, max=1 - eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """:math:`y = \\tanh x`, :math:`\\log|dy/dx| = 2(\\log 2 - x - \\mathrm{softplus}(-2x))`."""

    domain, codomain, bijective = constraints.real, constraints.interval(-1.0, 1.0), True

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """:math:`y = |x|` (not bijective; the inverse picks the positive root)."""

    domain, codomain = constraints.real, constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """:math:`y = \\mathrm{loc} + \\mathrm{scale}\\,x` over ``event_dim`` trailing dims,
    :math:`\\log|\\det J| = \\sum \\log|\\mathrm{scale}|` over those dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return (
            constraints.real
            if self._event_dim == 0
            else constraints.independent(constraints.real, self._event_dim)
        )

    codomain = domain

    @property
    def sign(self):
        return (
            self.scale.sign() if isinstance(self.scale, Tensor) else (1 if self.scale > 0 else -1)
        )

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, Tensor):
            result = scale.abs().log()
        else:
            result = full_like(x, math.log(abs(scale)))
        shape = broadcast_shapes(x.shape, result.shape)
        result = result.expand(*shape)
        return sum_rightmost(result, self._event_dim)

    def forward_shape(self, shape):
        return broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        )

    inverse_shape = forward_shape

    def __eq__(self, other):
        return (
            isinstance(other, AffineTransform)
            and self.loc is other.loc
            and self.scale is other.scale
            and self._event_dim == other._event_dim
        )

    __hash__ = Transform.__hash__


class SoftmaxTransform(Transform):
    """:math:`y = \\mathrm{softmax}(x)` along the last dim (not bijective: the inverse is
    the log, defined up to a constant)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        return softmax(x, -1)

    def _inverse(self, y):
        return y.log()


class StickBreakingTransform(Transform):
    """:math:`\\mathbb{R}^{K-1} \\to` the :math:`K`-simplex: :math:`z_i =
    \\sigma(x_i - \\log(K-1-i))`, :math:`y_i = z_i \\prod_{j<i}(1-z_j)`, the remainder last.

    :math:`\\log|\\det J| = \\sum_i [\\log z_i + \\log(1-z_i) + \\log \\prod_{j<i}(1-z_j)]`.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _offset(x):
        k = x.shape[-1]
        return arange(k, 0, -1, dtype=x.dtype, device=x.device).log()

    def _call(self, x):
        z = sigmoid(x - self._offset(x))
        rest = (1 - z).cumprod(-1)
        pad_one = F.pad(z, (0, 1), value=1.0)
        pad_rest = F.pad(rest, (1, 0), value=1.0)
        return pad_one * pad_rest

    def _inverse(self, y):
        head = y[..., :-1]
        remaining = 1 - head.cumsum(-1)
        remaining = F.pad(remaining[..., :-1], (1, 0), value=1.0)
        eps = finfo(y.dtype).tiny
        z = head / remaining.clamp(min=eps)
        return z.log() - (-z).log1p() + self._offset(head)

    def log_abs_det_jacobian(self, x, y):
        shifted = x - self._offset(x)
        return (-shifted + F.logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        return Size(list(shape[:-1]) + [shape[-1] + 1])

    def inverse_shape(self, shape):
        return Size(list(shape[:-1]) + [shape[-1] - 1])


class SoftplusTransform(Transform):
    """:math:`y = \\log(1 + e^x)`, inverse :math:`x = y + \\log(-\\mathrm{expm1}(-y))`,
    :math:`\\log|dy/dx| = -\\mathrm{softplus}(-x)`."""

    domain, codomain, bijective = constraints.real, constraints.positive, True

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return y + (-(-y).expm1()).log()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more dims counted as event dims
    (its log determinant summed over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform, self.reinterpreted_batch_ndims = (
            base_transform,
            reinterpreted_batch_ndims,
        )

    domain = property(
        lambda self: constraints.independent(
            self.base_transform.domain, self.reinterpreted_batch_ndims
        )
    )
    codomain = property(
        lambda self: constraints.independent(
            self.base_transform.codomain, self.reinterpreted_batch_ndims
        )
    )
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    @property
    def inv(self):
        return IndependentTransform(self.base_transform.inv, self.reinterpreted_batch_ndims)

    def _call(self, x):
        return self.base_transform(x)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(
            self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims
        )

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (same element count);
    volume preserving, :math:`\\log|\\det J| = 0`."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        super().__init__(cache_size)
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise errors.ShapeError(
                f"ReshapeTransform: in_shape {tuple(in_shape)} and "
                f"out_shape {tuple(out_shape)} differ in size"
            )

    domain = property(lambda self: constraints.independent(constraints.real, len(self.in_shape)))
    codomain = property(lambda self: constraints.independent(constraints.real, len(self.out_shape)))

    def _call(self, x):
        return x.reshape(*x.shape[: x.dim() - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y):
        return y.reshape(*y.shape[: y.dim() - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch = x.shape[: x.dim() - len(self.in_shape)]
        return zeros(tuple(batch), dtype=x.dtype, device=x.device)

    def forward_shape(self, shape):
        return Size(list(shape[: len(shape) - len(self.in_shape)]) + list(self.out_shape))

    def inverse_shape(self, shape):
        return Size(list(shape[: len(shape) - len(self.out_shape)]) + list(self.in_shape))


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal: the strict lower
    triangle kept, the diagonal exponentiated (not used for densities: no Jacobian)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + diagonal(x, 0, -2, -1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + diagonal(y, 0, -2, -1).log().diag_embed()


class CumulativeDistributionTransform(Transform):
    """:math:`y = F(x)`, the CDF of a univariate ``distribution``;
    :math:`\\log|dy/dx| = \\log p(x)`."""

    bijective, sign = True, 1
    codomain = constraints.unit_interval

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    domain = property(lambda self: self.distribution.support)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
