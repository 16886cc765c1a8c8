"""``biject_to(c)`` / ``transform_to(c)``: a transform from unconstrained reals onto the set
``c`` (bijective for ``biject_to``), looked up by the constraint's type."""

from . import constraints, transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint types (or instances' types) to factories ``f(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda f: self.register(constraint, f)
        key = constraint if isinstance(constraint, type) else type(constraint)
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        for cls in type(constraint).__mro__:
            if cls in self._registry:
                return self._registry[cls](constraint)
        raise NotImplementedError(f"no transform registered for constraint {constraint!r}")


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(c):
    return T.identity_transform


def _interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if lo is None and hi is None:
        return T.identity_transform
    if hi is None:  # (lo, inf): exp then shift
        return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(lo, 1)])
    if lo is None:  # (-inf, hi): exp then reflect
        return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(hi, -1)])
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(lo, hi - lo)])


def _independent_in(registry):
    return lambda c: T.IndependentTransform(
        registry(c.base_constraint), c.reinterpreted_batch_ndims
    )


for _registry in (biject_to, transform_to):
    _registry.register(constraints._Real, _real)
    _registry.register(constraints._Interval, _interval)
    _registry.register(constraints._Independent, _independent_in(_registry))

biject_to.register(constraints._Simplex, lambda c: T.StickBreakingTransform())
transform_to.register(constraints._Simplex, lambda c: T.SoftmaxTransform())
transform_to.register(constraints._LowerCholesky, lambda c: T.LowerCholeskyTransform())
