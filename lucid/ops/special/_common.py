"""What the modules of :mod:`lucid.special`'s own ops share: the schema shorthand and the
maker of the one-input wrappers (public through :mod:`lucid.special` only, not as Tensor
methods).

Every kernel computes in float64 from series, interpolants and continued fractions of its
own (no SciPy; see ``lucid/backend/array/special.py``) and rounds once to the input dtype;
integer inputs compute in the default float dtype, and autocast computes in float32.
"""

from __future__ import annotations

from ..core.schema import AmpPolicy, OpSchema

_FP32 = AmpPolicy.FORCE_FP32


def _schema(name, arity=1, differentiable=True):
    return OpSchema(
        name, 1, _FP32, real_valued=True, input_arity=arity, differentiable=differentiable
    )


def _unary(cls, name, doc):
    call = cls.call

    def op(input):
        return call(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    op.__module__ = cls.__module__  # the op's module, where the wrapper is bound
    return op
