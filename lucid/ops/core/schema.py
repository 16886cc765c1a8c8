"""What an op declares about itself: :class:`OpSchema` and :class:`AmpPolicy`."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["OpSchema", "AmpPolicy"]


class AmpPolicy(enum.Enum):
    """How an op treats floating inputs under ``lucid.amp.autocast``.

    ``PROMOTE``: cast to the autocast dtype (GEMM-bound ops: matmul, conv).
    ``PROMOTE_FIRST``: cast the first input (the activation) as ``PROMOTE``; the op casts
    the others (weights, bias) to its dtype itself, with no cast nodes, and their gradients
    come out in their own dtypes (linear: float32 weights under autocast).
    ``KEEP_INPUT``: run in the inputs' own dtype (memory-bound element-wise ops, copies).
    ``FORCE_FP32``: compute in float32 so half inputs do not overflow early (exp, log,
    softmax, norms, reductions, losses).
    """

    PROMOTE = "promote"
    PROMOTE_FIRST = "promote_first"
    KEEP_INPUT = "keep_input"
    FORCE_FP32 = "force_fp32"


@dataclass(frozen=True)
class OpSchema:
    """The registered identity of an op.

    ``name`` is the registry key (``"exp"``); ``version`` bumps when semantics change;
    ``deterministic`` is False for ops whose result may vary between runs, explained by
    ``determinism_note``; ``real_valued`` ops turn integer/bool inputs into the default
    float dtype (``exp(1)`` is 2.718); ``input_arity``/``output_arity`` count tensor inputs
    and outputs (-1: variable); ``internal`` ops serve other ops' backward and are not part
    of the public surface; ``differentiable`` is False for ops with integer/bool results;
    ``differentiable_outputs`` lists the outputs that carry gradients when not all do (a
    norm's ``out`` but not its saved ``mean``/``rstd``; None: every floating output);
    ``nondeterministic_on`` names the device types where a ``deterministic=False`` op
    varies (scatter-add's atomics on CUDA), so ``use_deterministic_algorithms`` refuses it
    there only. ``complex_grad`` declares complex support: ``None`` (the default) refuses
    complex inputs with a :class:`~lucid.errors.DTypeError` at the forward; ``"holomorphic"``
    marks an op whose real gradient formula ``g f'(z)`` is its complex derivative, so the
    base class runs it as ``conj(grad(conj(g)))`` on complex data; ``"custom"`` an op whose
    ``grad`` handles complex itself (``abs``, ``angle``, ``real``: not holomorphic), or a
    non-differentiable op that accepts complex (``eq``). ``capturable`` is False for an op
    whose output's shape depends on its input's values (``nonzero``, ``unique``): a call
    of it is a graph break for ``lucid.compile``.
    """

    name: str
    version: int = 1
    amp_policy: AmpPolicy = AmpPolicy.KEEP_INPUT
    deterministic: bool = True
    determinism_note: str = ""
    real_valued: bool = False
    input_arity: int = 1
    output_arity: int = 1
    internal: bool = False
    differentiable: bool = True
    differentiable_outputs: tuple | None = None
    nondeterministic_on: tuple = ("cpu", "cuda")
    complex_grad: str | None = None
    capturable: bool = True

    def __post_init__(self):
        if self.complex_grad not in (None, "holomorphic", "custom"):
            raise ValueError(
                f"OpSchema {self.name!r}: complex_grad must be None, "
                f"'holomorphic' or 'custom', got {self.complex_grad!r}"
            )
