"""The :class:`Distribution` base: shapes, sampling, validation, moments from the family."""

from typing import Any
import math

from .._tensor import Size, Tensor, tensor
from ..autograd import no_grad
from ..dtypes import get_default_dtype
from ..ops import broadcast_shapes, broadcast_tensors, exp
from .. import ops as _ops
from .. import errors

from . import constraints

__all__ = ["Distribution", "as_size", "broadcast_all", "set_default_validate_args", "sum_rightmost"]

_VALIDATE_DEFAULT = [True]


def set_default_validate_args(value):
    """Turn argument (and sample) validation on or off for distributions made from now on."""
    if value not in (True, False):
        raise errors.ArgumentTypeError(
            f"set_default_validate_args: expected True or False, got {value!r}"
        )
    _VALIDATE_DEFAULT[0] = value


def broadcast_all(*values):
    """Tensors of ``values`` (numbers become tensors of the tensors' dtype, else the
    default dtype) broadcast to one shape."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None and like.dtype.is_floating_point else get_default_dtype()
    device = like.device if like is not None else None
    ts = [
        v if isinstance(v, Tensor) else tensor(float(v), dtype=dtype, device=device) for v in values
    ]
    return broadcast_tensors(*ts) if len(ts) > 1 else ts


def sum_rightmost(x, n):
    """``x`` summed over its ``n`` rightmost dims."""
    return x.sum(list(range(-n, 0))) if n > 0 else x


def as_size(shape):
    """A :class:`lucid.Size` from an int or a sequence of ints."""
    if isinstance(shape, int):
        return Size([shape])
    return Size(list(shape))


class Distribution:
    """A batch of probability distributions over events of ``event_shape``.

    ``sample(sample_shape)`` has shape ``sample_shape + batch_shape + event_shape``;
    ``log_prob(value)`` has shape ``broadcast(value.shape[:-event_dim]) `` (the batch).
    Subclasses declare ``arg_constraints`` (parameter name -> constraint) and ``support``;
    with ``validate_args`` (default on, see :func:`set_default_validate_args`) parameters
    are checked at construction and values at ``log_prob``/``cdf``.
    """

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}
    support: Any = None

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = as_size(batch_shape), as_size(event_shape)
        self._validate_args = _VALIDATE_DEFAULT[0] if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint) or name not in self.__dict__:
                    continue  # not given (e.g. probs when built from logits)
                value = getattr(self, name)
                if not isinstance(value, Tensor):
                    value = tensor(value)
                if not bool(_ops.all(constraint.check(value)).item()):
                    raise errors.ArgumentError(
                        f"{type(self).__name__}: parameter {name} (shape "
                        f"{tuple(value.shape)}) must satisfy {constraint!r}, got {value}"
                    )

    # ---- shapes ----------------------------------------------------------------------
    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return as_size(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape, _instance=None):
        """The same distribution over a larger ``batch_shape`` (parameters broadcast, no
        copy). Parameters are the tensors whose leading dims are the batch shape."""
        batch_shape = as_size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        n = len(self._batch_shape)
        for key, value in self.__dict__.items():
            if (
                isinstance(value, Tensor)
                and value.dim() >= n
                and tuple(value.shape[:n]) == tuple(self._batch_shape)
            ):
                value = value.expand(*(batch_shape + value.shape[n:]))
            new.__dict__.setdefault(key, value)
        new._batch_shape = batch_shape
        return new

    # ---- sampling --------------------------------------------------------------------
    def sample(self, sample_shape=()):
        """A sample (no gradient) of shape ``sample_shape + batch_shape + event_shape``."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(
            f"{type(self).__name__}: rsample is not available (has_rsample is False)"
        )

    def sample_n(self, n):
        return self.sample((n,))

    # ---- densities -------------------------------------------------------------------
    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__}.log_prob")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__}.cdf")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__}.icdf")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__}.entropy")

    def perplexity(self):
        return exp(self.entropy())

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__}.enumerate_support")

    # ---- moments ---------------------------------------------------------------------
    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__}.mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__}.mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__}.variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    # ---- validation ------------------------------------------------------------------
    def _validate_sample(self, value):
        """Check ``value`` is a tensor whose trailing dims match ``event_shape``, that
        broadcasts with the batch, and lies in the support."""
        name = type(self).__name__
        if not isinstance(value, Tensor):
            raise errors.ArgumentTypeError(
                f"{name}: value must be a Tensor, got {type(value).__name__}"
            )
        k = len(self._event_shape)
        if tuple(value.shape[value.dim() - k :]) != tuple(self._event_shape) or value.dim() < k:
            raise errors.ShapeError(
                f"{name}: value of shape {tuple(value.shape)} must end "
                f"in the event shape {tuple(self._event_shape)}"
            )
        try:
            broadcast_shapes(value.shape, self._batch_shape + self._event_shape)
        except Exception:
            raise errors.ShapeError(
                f"{name}: value of shape {tuple(value.shape)} does not broadcast with "
                f"batch_shape {tuple(self._batch_shape)} + event_shape "
                f"{tuple(self._event_shape)}"
            ) from None
        support = self.support
        if support is not None and not constraints.is_dependent(support):
            if not bool(_ops.all(support.check(value)).item()):
                raise errors.ArgumentError(
                    f"{name}: value must be in the support {support!r}, got {value}"
                )

    def _check(self, value):
        if self._validate_args:
            self._validate_sample(value)

    def __repr__(self):
        shown = []
        for k in self.arg_constraints:
            v = self.__dict__.get(k)
            if isinstance(v, Tensor):
                shown.append(f"{k}: {v.item() if v.dim() == 0 else tuple(v.shape)}")
        return f"{type(self).__name__}({', '.join(shown)})"


LOG_2PI = math.log(2 * math.pi)
