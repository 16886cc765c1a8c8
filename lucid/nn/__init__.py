"""``lucid.nn``: modules, parameters, layers, losses; ``functional``, ``init``, ``utils``."""

from .parameter import *  # noqa: F401,F403
from .modules import *  # noqa: F401,F403
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401
