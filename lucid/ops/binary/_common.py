"""What the modules of element-wise ops of two or three inputs share: the test for a Python
real number as an operand, and the installer of the in-place Tensor methods (``add_``,
``lerp_``, ...), which, unlike the unary ones, are not public functions of ``lucid``.
"""

from __future__ import annotations

import numbers

from ..._tensor import Tensor
from ..core.inplace import alias_safe, apply_inplace


def _is_number(x):
    k = x.__class__
    return k is int or k is float or k is bool or isinstance(x, numbers.Real)


def _inplace(fn, *names):
    """Install ``Tensor.<name>`` for each name as the in-place form of ``fn``."""
    alias_safe(fn)

    def method(self, *args, **kwargs):
        return apply_inplace(fn, self, *args, **kwargs)

    method.__name__ = names[0]
    method.__doc__ = f"In-place :func:`{fn.__name__}`."
    method.__module__ = fn.__module__
    for n in names:
        setattr(Tensor, n, method)
    return method
