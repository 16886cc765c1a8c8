"""Collectives that record a graph, as ``torch.distributed.nn``."""

from . import functional  # noqa: F401
