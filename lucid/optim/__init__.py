"""``lucid.optim``: optimizers over param groups, updates in place; ``lr_scheduler``.

Each optimizer is a class (options, state, ``state_dict`` in PyTorch's format) over a
functional update (``adam``, ``sgd``, ...) over one backend kernel per param group.
"""

from . import lr_scheduler  # noqa: F401
from .adam import Adam, Adamax, AdamW, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSprop
from .lbfgs import LBFGS
from .optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from .rprop import Rprop
from .sgd import ASGD, SGD

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "ASGD",
    "Rprop",
    "LBFGS",
    "lr_scheduler",
    "register_optimizer_step_pre_hook",
    "register_optimizer_step_post_hook",
]
