"""Hook handles, shared by tensors, nodes and (later) modules."""

from __future__ import annotations

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook; also a
    context manager that removes it on exit."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
