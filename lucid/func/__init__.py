"""``lucid.func``: composable function transforms, as ``torch.func``.

- :func:`grad`, :func:`grad_and_value`, :func:`vjp`, :func:`jvp`, :func:`jacrev`,
  :func:`jacfwd`, :func:`hessian` (:mod:`lucid.func.transforms`), on Lucid's reverse-mode
  autograd with higher-order graphs;
- :func:`vmap` (:mod:`lucid.func.vmap`), vectorized by per-op batching rules
  (:mod:`lucid.func.batching`);
- :func:`functional_call` (:mod:`lucid.func.functional_call`): a module run with other
  parameters and buffers.

The transforms compose: ``vmap(grad(f))`` gives per-sample gradients, ``jacfwd(jacrev(f))``
a Hessian, ``grad(grad(f))`` a second derivative.
"""

from ._batched import VmapError
from .batching import batched_ops
from .functional_call import functional_call
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "batched_ops", "VmapError"]
