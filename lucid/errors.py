"""The error hierarchy of Lucid.

Every error Lucid raises on bad input derives from :class:`LucidError` and from the built-in
exception a Python user would expect (``ShapeError`` is a ``ValueError``, ``DTypeError`` a
``TypeError``, ...), so ``except ValueError`` keeps working. A message names the op, what it
got and what it expected.
"""


class LucidError(Exception):
    """Base of every error raised by Lucid."""


class ShapeError(LucidError, ValueError):
    """Shapes that cannot broadcast, multiply or be reshaped into each other."""


class DimError(LucidError, IndexError):
    """A dimension index outside ``[-ndim, ndim)``."""


class DTypeError(LucidError, TypeError):
    """A dtype an op does not accept, or a cast that would lose the result's kind."""


class DeviceError(LucidError, RuntimeError):
    """A device that does not exist or is not available."""


class DeviceMismatchError(DeviceError):
    """Tensors on different devices given to one op."""


class IndexingError(LucidError, IndexError):
    """An index out of range or of an unsupported kind."""


class IndexArgumentError(IndexingError, ValueError):
    """A bad index argument value: a slice step that is not positive, an unknown reduction."""


class ArgumentError(LucidError, ValueError):
    """An argument value outside what the op accepts (an unknown mode, a negative tolerance)."""


class DivisionByZeroError(LucidError, ZeroDivisionError, RuntimeError):
    """Integer division (``//``, ``%``, ``fmod``, ``div`` with a rounding mode) by zero."""


class AutogradError(LucidError, RuntimeError):
    """Misuse of the autograd engine: freed graphs, non-scalar roots, leaves modified in place."""


class VersionMismatchError(AutogradError):
    """A tensor saved for backward was modified in place before the backward ran."""


class DeterminismError(LucidError, RuntimeError):
    """A non-deterministic op called while deterministic algorithms are required."""


class GradcheckError(LucidError, RuntimeError):
    """Analytical and numerical gradients disagree in ``gradcheck``."""
