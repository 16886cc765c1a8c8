"""Constraints: the sets a distribution's parameters and samples live in.

A constraint's ``check(value)`` is a boolean tensor, one entry per event (the trailing
``event_dim`` dims are reduced); ``is_discrete`` marks integer-valued sets.
"""

from ..ops import diagonal, full
from .. import dtypes as _dt
from .. import linalg
from .. import ops as _ops

__all__ = [
    "Constraint",
    "boolean",
    "cat",
    "dependent",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A set: ``check(value)`` says, per event, whether ``value`` lies in it."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A placeholder whose set depends on other parameters (not checked)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=None, event_dim=None):
        return _Dependent(
            is_discrete=self.is_discrete if is_discrete is None else is_discrete,
            event_dim=self.event_dim if event_dim is None else event_dim,
        )

    def check(self, value):
        raise ValueError("a dependent constraint cannot be checked")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


def _reduce(ok, event_dim):
    for _ in range(event_dim):
        ok = ok.all(-1)
    return ok


class _Real(Constraint):
    def check(self, value):
        return value == value  # NaN is the only real number not equal to itself


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]`` (either bound may be None)."""

    is_discrete = True

    def __init__(self, lower_bound=None, upper_bound=None):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        ok = value % 1 == 0
        if self.lower_bound is not None:
            ok = ok & (value >= self.lower_bound)
        if self.upper_bound is not None:
            ok = ok & (value <= self.upper_bound)
        return ok

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """Reals in ``[lower_bound, upper_bound]``; ``open_lower``/``open_upper`` exclude an end."""

    def __init__(self, lower_bound=None, upper_bound=None, open_lower=False, open_upper=False):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.open_lower, self.open_upper = open_lower, open_upper

    def check(self, value):
        ok = value == value
        if self.lower_bound is not None:
            ok = ok & (
                (value > self.lower_bound) if self.open_lower else (value >= self.lower_bound)
            )
        if self.upper_bound is not None:
            ok = ok & (
                (value < self.upper_bound) if self.open_upper else (value <= self.upper_bound)
            )
        return ok

    def __repr__(self):
        lo = "(" if self.open_lower or self.lower_bound is None else "["
        hi = ")" if self.open_upper or self.upper_bound is None else "]"
        a = "-inf" if self.lower_bound is None else self.lower_bound
        b = "inf" if self.upper_bound is None else self.upper_bound
        return f"Interval{lo}{a}, {b}{hi}"


def interval(lower_bound, upper_bound):
    return _Interval(lower_bound, upper_bound)


def half_open_interval(lower_bound, upper_bound):
    return _Interval(lower_bound, upper_bound, open_upper=True)


def greater_than(lower_bound):
    return _Interval(lower_bound, open_lower=True)


def greater_than_eq(lower_bound):
    return _Interval(lower_bound)


def less_than(upper_bound):
    return _Interval(upper_bound=upper_bound, open_upper=True)


def integer_interval(lower_bound, upper_bound):
    return _IntegerInterval(lower_bound, upper_bound)


class _Independent(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more dims treated as event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        return _reduce(self.base_constraint.check(value), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Simplex(Constraint):
    """Vectors of nonnegative entries summing to one: :math:`x_i \\ge 0, \\sum_i x_i = 1`."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Multinomial(Constraint):
    """Nonnegative integer vectors summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).all(-1).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        tri = (value.tril() == value).all(-1).all(-1)
        return tri & (diagonal(value, 0, -2, -1) > 0).all(-1)


class _Symmetric(Constraint):
    event_dim = 2

    def check(self, value):
        return ((value - value.mT).abs() < 1e-6 * (1 + value.abs())).all(-1).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return full(
            tuple(value.shape[:-2]),
            value.shape[-1] == value.shape[-2],
            dtype=_dt.bool,
            device=value.device,
        )


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with positive eigenvalues."""

    def check(self, value):
        return super().check(value) & (linalg.eigvalsh(value) > 0).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        return super().check(value) & (linalg.eigvalsh(value) >= 0).all(-1)


class _Cat(Constraint):
    """Constraints ``cseq`` applied to consecutive ``lengths`` slices along ``dim``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq, self.dim = list(cseq), dim
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        parts, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            parts.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return _ops.cat(parts, self.dim)


class _Stack(Constraint):
    """Constraints ``cseq`` applied to the slices of ``value`` along ``dim``."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = list(cseq), dim

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        return _ops.stack(
            [c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim
        )


dependent = _Dependent()
real = _Real()
real_vector = _Independent(real, 1)
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerInterval(0)
positive_integer = _IntegerInterval(1)
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveSemidefinite()
independent = _Independent
multinomial = _Multinomial
cat = _Cat
stack = _Stack
