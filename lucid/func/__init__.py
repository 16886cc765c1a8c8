"""``lucid.func``: composable function transforms, as ``torch.func``.

- :func:`grad`, :func:`grad_and_value`, :func:`vjp`, :func:`jvp`, :func:`linearize`,
  :func:`jacrev`, :func:`jacfwd`, :func:`hessian` (:mod:`lucid.func.transforms`), on
  Lucid's reverse-mode autograd with higher-order graphs (forward mode by double vjp);
- :func:`vmap` (:mod:`lucid.func.vmap`), vectorized by per-op batching rules
  (:mod:`lucid.func.batching`);
- :func:`functional_call`, :func:`stack_module_state` (:mod:`lucid.func.functional_call`):
  a module run with other parameters and buffers; an ensemble's state stacked;
- :func:`replace_all_batch_norm_modules_`: batch norm without running statistics, so a
  model with it can be vmapped.

The transforms compose: ``vmap(grad(f))`` gives per-sample gradients, ``jacfwd(jacrev(f))``
a Hessian, ``grad(grad(f))`` a second derivative.
"""

from ._batched import VmapError
from .batch_norm import replace_all_batch_norm_modules_
from .batching import batched_ops
from .functional_call import functional_call, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from .vmap import vmap

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "linearize",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "stack_module_state",
    "batched_ops",
    "replace_all_batch_norm_modules_",
    "VmapError",
]
