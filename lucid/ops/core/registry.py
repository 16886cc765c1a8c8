"""The op registry: every op class by schema name, so docs and tests can walk all ops."""

from __future__ import annotations

__all__ = ["register", "list_ops", "get_op", "all_ops", "BATCHING"]

_OPS: dict = {}

# The batching hooks of ``lucid.func.vmap``: while a vmap level is active
# (``STATE.vmap``), :meth:`~lucid.ops.core.base.Op.apply` first calls ``BATCHING[0](cls, inputs,
# params)``, which runs the op's batching rule on batched inputs or returns NotImplemented,
# and :func:`~lucid.ops.core.inplace.apply_inplace` calls ``BATCHING[1](fn, self, args, kwargs)``,
# the in-place counterpart.
BATCHING: list = [None, None]


def register(cls):
    """Class decorator: record ``cls`` under ``cls.schema_v1.name`` (names are unique)."""
    name = cls.schema_v1.name
    if name in _OPS and _OPS[name] is not cls:
        raise ValueError(f"op {name!r} registered twice ({_OPS[name].__name__}, {cls.__name__})")
    _OPS[name] = cls
    return cls


def list_ops(include_internal: bool = True) -> list:
    """Sorted names of every registered op."""
    return sorted(n for n, c in _OPS.items() if include_internal or not c.schema_v1.internal)


def get_op(name: str):
    """The op class registered as ``name``."""
    try:
        return _OPS[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} is registered") from None


def all_ops() -> dict:
    """A copy of the name -> class mapping."""
    return dict(_OPS)
