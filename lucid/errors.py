"""The error hierarchy of Lucid.

Every error Lucid raises on bad input derives from :class:`LucidError` and from the built-in
exception a Python user would expect (``ShapeError`` is a ``ValueError``, ``DTypeError`` a
``TypeError``, ...), so ``except ValueError`` keeps working. A message names the op, what it
got and what it expected.

PyTorch raises ``RuntimeError`` (its ``c10::Error``) for most failed checks inside an op:
shapes that do not broadcast or multiply, ``requires_grad`` on an integer tensor, a gather
index out of range, an unknown mode. So that code written for PyTorch keeps catching them,
the errors raised in those situations also derive from ``RuntimeError``: :class:`ShapeError`,
:class:`DimError`, :class:`DTypeError`, :class:`IndexingError`, :class:`ArgumentError` and
:class:`ValueOverflowError` are both their Python-natural built-in and ``RuntimeError``
(PyTorch's "Dimension out of range" is an ``IndexError``, its "dim appears multiple times"
and "Expected reduction dim to be specified" checks ``RuntimeError`` s). A dtype an op has
no kernel for is a ``NotImplementedError`` in PyTorch ("not implemented for 'Float'"), which
is a ``RuntimeError`` too, so :class:`DTypeError` derives from it. Only
:class:`ArgumentTypeError` (an argument of the wrong Python type: ``x.sum(1.0)``,
``dtype="float32"``) is a ``TypeError`` and nothing else, as PyTorch's argument parser raises.
``tests/test_error_table.py`` runs each situation in both libraries and checks that
``except <what PyTorch raised>`` catches Lucid's error.

A public function built on other ops wears :func:`reports_as`, so that its errors name it
(``dstack: ...``, not ``cat: ...``).
"""

import functools
import pickle
import re


class LucidError(Exception):
    """Base of every error raised by Lucid."""


class ShapeError(LucidError, ValueError, RuntimeError):
    """Shapes that cannot broadcast, multiply or be reshaped into each other (PyTorch: a
    ``RuntimeError``; ``ValueError`` for ragged nested sequences)."""


class DimError(LucidError, IndexError, RuntimeError):
    """A dimension index outside ``[-ndim, ndim)``."""


class DTypeError(LucidError, TypeError, NotImplementedError):
    """A dtype an op does not accept, or a cast that would lose the result's kind (PyTorch:
    ``RuntimeError``, e.g. "not implemented for 'Bool'", or ``TypeError``)."""


class ArgumentTypeError(LucidError, TypeError):
    """An argument of the wrong Python type (``x.sum(1.0)``, ``dtype="float32"``,
    ``dtype=np.float32``); PyTorch's argument parser raises ``TypeError``."""


class DeviceError(LucidError, RuntimeError):
    """A device that does not exist or is not available."""


class DeviceMismatchError(DeviceError):
    """Tensors on different devices given to one op."""


class IndexingError(LucidError, IndexError, RuntimeError):
    """An index out of range or of an unsupported kind (PyTorch: ``IndexError`` for
    subscripts, ``RuntimeError`` for gather/scatter/take indices)."""


class IndexArgumentError(IndexingError, ValueError):
    """A bad index argument value: a slice step that is not positive, an unknown reduction."""


class ArgumentError(LucidError, ValueError, RuntimeError):
    """An argument value outside what the op accepts (an unknown mode, a negative tolerance;
    PyTorch: mostly ``RuntimeError``)."""


class ValueOverflowError(DTypeError, OverflowError, ValueError):
    """A value that does not fit the dtype it is converted to: ``tensor(2**63)`` (PyTorch:
    ``ValueError``), ``tensor([300], dtype=uint8)`` or ``full((2,), 300, dtype=uint8)``
    (PyTorch: ``RuntimeError``)."""


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


class MemoryOverlapError(LucidError, RuntimeError):
    """An in-place write whose source partly overlaps its destination in memory."""


class SerializationError(LucidError, RuntimeError):
    """A file that ``lucid.load`` / ``lucid.load_safetensors`` cannot read: truncated,
    corrupt, not safetensors, or with a structure ``lucid.save`` never writes (PyTorch:
    ``RuntimeError`` or ``pickle.UnpicklingError``)."""


class WeightsOnlyError(SerializationError, pickle.UnpicklingError):
    """``lucid.load(weights_only=True)`` met what it does not rebuild: a global (class or
    function) that is neither a default nor allowed by ``add_safe_globals``, or an opcode
    that would call or build such an object (PyTorch: ``pickle.UnpicklingError``,
    "Weights only load failed")."""


class ExportError(LucidError, BufferError):
    """A tensor that cannot be handed to another library as is (DLPack of a tensor that
    requires grad)."""


class NotSupportedError(LucidError, NotImplementedError):
    """A PyTorch feature Lucid does not have (yet), such as ONNX export: a
    ``NotImplementedError``, hence a ``RuntimeError`` too."""


class DistributedError(LucidError, RuntimeError):
    """A ``lucid.distributed`` collective that cannot run or failed: no process group,
    a rank that died, tensors that differ across ranks, a backend that is not installed
    (PyTorch: ``RuntimeError`` / ``DistBackendError``)."""


class DistributedTimeoutError(DistributedError, TimeoutError):
    """A collective that did not complete within the process group's timeout: a rank
    died, hangs, or never called it (PyTorch: ``DistBackendError`` after its watchdog)."""


class CompileError(LucidError, RuntimeError):
    """``lucid.compile(..., fullgraph=True)`` met something its recording cannot replay
    (a graph break: a host read of a tensor's value, an op whose output shape depends on
    values, a backward hook); the message names the cause and the line (PyTorch:
    ``torch._dynamo.exc.Unsupported``, a ``RuntimeError``)."""


class ProfilerError(LucidError, RuntimeError):
    """A profiler used out of order: started while another records, its results asked
    for before it stopped, a table sorted by a column it does not have (PyTorch: a
    ``RuntimeError`` or ``AssertionError``)."""


# -- naming the op the user called ---------------------------------------------------------

_OP_PREFIX = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?(?: \([^)]*\))?: ")


def reports_as(op):
    """Decorator for a public function built on other ops (``dstack`` on ``cat``, ``addmv``
    on ``mv``, ``floor_divide`` on ``div``): a :class:`LucidError` raised inside it names
    ``op``, the function the user called, instead of the internal op that found the problem.

    The error keeps its type and traceback; only the leading ``"<internal op>: "`` of its
    message becomes ``"<op>: "`` (or ``"<op>: "`` is prepended when the message names no
    op). Messages that already start with ``op`` are left alone. No cost unless an error is
    raised."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except LucidError as e:
                set_op_name(e, op)
                raise

        return wrapper

    return deco


def set_op_name(err, op):
    """Make Lucid error ``err``'s message name ``op`` (in place; see :func:`reports_as`), for
    code that catches an error of an inner step and re-raises it for the op it serves."""
    msg = str(err.args[0]) if err.args else ""
    if msg.startswith((op + ":", op + "()", op + " (")):
        return
    m = _OP_PREFIX.match(msg)
    err.args = (f"{op}: {msg[m.end() :] if m else msg}",) + tuple(err.args[1:])
