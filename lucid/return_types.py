"""The named-tuple results ``(values, indices)`` of ``max``, ``min``, ``sort``, ``topk``, ...

A real module, so results pickle by name (``lucid.return_types.max``).
"""

from .ops.reduction.extrema import return_types as _types

globals().update(vars(_types))
__all__ = sorted(vars(_types))
