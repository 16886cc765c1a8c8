"""``F`` in graph mode: Lucid ops under the backend's kernel names and signatures.

An op writes its gradient once, as :meth:`Op.grad` ``(self, F, g, *saved)``. The eager
backward runs it with ``F`` the backend, on arrays; the graph-mode backward runs it with
``F`` this module, on Tensors, so every step is a recorded op and the gradient is itself
differentiable. A formula may use operators (``g * x``, ``x > 0``) and the functions below;
each takes the arguments the backend kernel of the same name takes.

Loaded after every op module, and installed as ``Op.graph_ns`` by :mod:`lucid.ops`.
"""

from .basics import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from . import basics, fft, layers, special

__all__ = basics.__all__ + special.__all__ + layers.__all__ + fft.__all__
