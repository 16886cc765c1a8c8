"""``lucid.optim``: optimizers over param groups, updates in place; ``lr_scheduler``."""

from . import lr_scheduler  # noqa: F401
