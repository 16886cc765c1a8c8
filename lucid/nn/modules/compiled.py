"""What ``lucid.compile(module)`` returns: a module over the original that replays its
call.

:class:`OptimizedModule` registers the original as ``_orig_mod`` (so its state dict keys
start with ``_orig_mod.``, as PyTorch's) and shares its parameters; attributes it does not
have come from the original. Its forward is the original's ``__call__`` (hooks included)
through :class:`~lucid.compiler.api.CompiledFunction`.
"""

from __future__ import annotations

from ...compiler.api import CompiledFunction
from .module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A compiled module (see the module doc)."""

    def __init__(self, mod, **options):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", CompiledFunction(mod.__call__, **options))
        object.__setattr__(self, "training", mod.training)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def train(self, mode=True):
        super().train(mode)
        return self

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __repr__(self):
        return f"OptimizedModule({self._orig_mod!r})"


def _compile_module(self, **options):
    """What ``lucid.compile(module)`` returns: an :class:`OptimizedModule` sharing the
    module's parameters (installed on :class:`Module` here, where the class is known)."""
    return OptimizedModule(self, **options)


Module._compile_module = _compile_module  # type: ignore[attr-defined]
