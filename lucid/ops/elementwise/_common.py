"""What the element-wise unary modules share: the schema shorthand, the base of the
piecewise-constant ops, and the makers of the public wrappers (``exp``) and their in-place
forms (``exp_``), each also installed as a Tensor method.

Each op writes its gradient once, as ``grad(self, F, g, x, out)`` (see
:meth:`~lucid.ops.core.base.Op.grad`); gradient formulas follow PyTorch's
``derivatives.yaml`` (masks at ties and domain edges included). In graph mode the masks
are comparisons, tensors without history, where PyTorch uses boolean selections, so the
second derivative through a piecewise op is that of the selected branch.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...errors import DTypeError
from ..core._bind import tensor_method
from ..core.base import UnaryOp, to_tensor
from ..core.inplace import alias_safe, apply_inplace
from ..core.schema import AmpPolicy, OpSchema

_FP32 = AmpPolicy.FORCE_FP32
_KEEP = AmpPolicy.KEEP_INPUT
_NUMERIC = 1  # dtype category needed: 1 rejects bool, 2 accepts floating only


def _schema(name, policy, real=False, cx=None):
    return OpSchema(name, 1, policy, real_valued=real, complex_grad=cx)


class _StepBackward(UnaryOp):
    """A piecewise-constant op: its gradient is 0 wherever it exists (PyTorch's choice at
    the jumps too)."""

    __slots__ = ()

    def grad(self, F, g, x, out):
        return F.zeros_like(g)


def _reject(name, dt, need):
    want = "a floating point" if need == 2 else "a numeric (non-bool)"
    raise DTypeError(f"{name}: expected {want} tensor, got dtype {dt.name}")


def _unary(cls, name, doc, need=0, aliases=()):
    """The wrapper ``name(input)`` over ``cls.call``, also ``Tensor.<name>`` and aliases;
    ``need`` (1 or 2) rejects inputs below that dtype category (bool, integer)."""
    call = cls.call
    if need:

        def op(input):
            if input.__class__ is not Tensor:
                input = to_tensor(input)
            if input._dtype._cat < need:
                _reject(name, input._dtype, need)
            return call(input)
    else:

        def op(input):
            return call(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    op.__module__ = cls.__module__  # the op's module, where the wrapper is bound
    tensor_method(name, *aliases)(op)
    return op


def _inplace(fn, *aliases):
    """``fn_(input, ...)``: :func:`fn` written into ``input``, also as Tensor methods."""

    alias_safe(fn)

    def op_(input, *args, **kwargs):
        return apply_inplace(fn, input, *args, **kwargs)

    op_.__name__ = op_.__qualname__ = fn.__name__ + "_"
    op_.__doc__ = f"In-place :func:`{fn.__name__}`."
    op_.__module__ = fn.__module__
    tensor_method(op_.__name__, *aliases)(op_)
    return op_
