"""The globals that ``load(weights_only=True)`` may rebuild beyond its defaults, as PyTorch's
``torch.serialization.add_safe_globals`` / ``safe_globals`` keep them.

An entry is a class or function, or ``(obj, "module.name")`` for one that a file names
differently from where it lives now. A file's global ``module.name`` is looked up by that
string only: checking a file never imports anything.
"""

from __future__ import annotations

from ..errors import ArgumentTypeError

__all__ = [
    "add_safe_globals",
    "safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "lookup",
    "is_allowed_object",
]

_SAFE: list = []


def _name_of(entry):
    if isinstance(entry, tuple):
        return entry[1]
    return f"{entry.__module__}.{entry.__qualname__}"


def _checked(globals_list, op):
    if not isinstance(globals_list, (list, tuple)):
        raise ArgumentTypeError(
            f"{op}: expected a list of classes or functions, got {type(globals_list).__name__}"
        )
    for g in globals_list:
        if isinstance(g, tuple):
            if len(g) != 2 or not isinstance(g[1], str) or "." not in g[1]:
                raise ArgumentTypeError(
                    f"{op}: a tuple entry must be (obj, 'module.name'), got {g!r}"
                )
        elif not (hasattr(g, "__module__") and hasattr(g, "__qualname__")):
            raise ArgumentTypeError(
                f"{op}: expected classes or functions (objects with a module and a name), got {g!r}"
            )
    return list(globals_list)


def add_safe_globals(safe_globals):
    """Allow ``load(weights_only=True)`` to rebuild these classes and call these functions
    (``[cls, fn, (obj, "module.name"), ...]``), in addition to the defaults."""
    _SAFE.extend(_checked(safe_globals, "add_safe_globals"))


def get_safe_globals():
    """The globals :func:`add_safe_globals` has allowed, as a new list."""
    return list(_SAFE)


def clear_safe_globals():
    """Forget every global :func:`add_safe_globals` allowed."""
    _SAFE.clear()


class safe_globals:
    """Context manager: the given globals are allowed inside the ``with`` block only."""

    def __init__(self, safe_globals):
        self._globals = _checked(safe_globals, "safe_globals")
        self._saved = None

    def __enter__(self):
        self._saved = list(_SAFE)
        _SAFE.extend(self._globals)
        return self

    def __exit__(self, *exc):
        _SAFE[:] = self._saved
        return False


def lookup(module, name):
    """The allowed object a file's ``module.name`` names, or None."""
    full = f"{module}.{name}"
    for g in reversed(_SAFE):
        if _name_of(g) == full:
            return g[0] if isinstance(g, tuple) else g
    return None


def is_allowed_object(obj):
    """Whether ``obj`` itself was allowed (under any name)."""
    return any((g[0] if isinstance(g, tuple) else g) is obj for g in _SAFE)
