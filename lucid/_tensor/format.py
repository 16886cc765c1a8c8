"""``repr`` of a tensor in PyTorch's style, and the print options that control it.

``tensor([1.0000, 2.5000], requires_grad=True)``. The rules are PyTorch's:

- one formatter per tensor, chosen from its finite non-zero values (of the summarised data
  when the tensor is summarised): integral values print as ``3.``; scientific notation when
  those magnitudes span more than 1e3 or exceed 1e8 (or, for non-integral values, go below
  1e-4), or when ``sci_mode`` forces it; otherwise ``precision`` decimals. Every element is
  right-aligned to the widest of those values written in the chosen notation, so nan, inf
  and ``-0.`` do not widen the others; a tensor without finite non-zero values keeps the
  automatic notation;
- more than ``threshold`` elements are summarised: ``edgeitems`` at each end of every dim,
  `` ...`` between (``...`` rows between rows);
- a row holds ``floor((linewidth - indent) / (width + 2))`` elements;
- a complex element is its real part, then its imaginary part with its sign and ``j``,
  each part formatted by those rules over all the parts of its kind;
- ``dtype=`` is shown unless the dtype is the default float, int64 or bool (and always for
  an empty tensor whose dtype is not the default float), ``size=`` for an empty tensor that
  is not 1-D; suffixes move to a new line when they would pass ``linewidth``.

:func:`set_printoptions` changes the options (``profile``: ``"default"``, ``"short"``,
``"full"``), :func:`get_printoptions` reads them and :func:`printoptions` sets them for a
``with`` block.
"""

from __future__ import annotations

import contextlib
import math

from .. import dtypes as _dt
from ..errors import ArgumentError
from .._device import get_default_device

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Set the options of tensor printing, as ``torch.set_printoptions``.

    ``precision``: decimals (default 4); ``threshold``: the element count above which a
    tensor is summarised (1000); ``edgeitems``: elements kept at each end of a summarised
    dim (3); ``linewidth``: characters per line (80); ``profile``: ``"default"``,
    ``"short"`` or ``"full"`` (applied first, then the other arguments); ``sci_mode``: True
    or False forces scientific notation on or off, None (the default) chooses it per tensor.
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ArgumentError(
                f"set_printoptions: profile must be one of {', '.join(_PROFILES)}, got {profile!r}"
            )
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth) = (
            _PROFILES[profile]
        )
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ArgumentError(
                f"set_printoptions: {name} must be a non-negative number, got {value!r}"
            )
        setattr(PRINT_OPTS, name, value)
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise ArgumentError(
            f"set_printoptions: sci_mode must be True, False or None, got {sci_mode!r}"
        )
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options as a dict (the arguments of :func:`set_printoptions`)."""
    return {n: getattr(PRINT_OPTS, n) for n in _PrintOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Within a ``with`` block, print with the given options; restored afterwards."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# -- the formatter -----------------------------------------------------------------------


class _Formatter:
    """How every element of one tensor is written (PyTorch's ``_Formatter``)."""

    __slots__ = ("floating", "int_mode", "sci_mode", "width")

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in values:
                self.width = max(self.width, len(str(v)))
            return
        finite = [v for v in values if v != 0 and math.isfinite(v)]
        if not finite:
            return
        mags = [abs(v) for v in finite]
        lo, hi = min(mags), max(mags)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        wide = hi / lo > 1000.0 or hi > 1.0e8
        self.sci_mode = wide if self.int_mode else (wide or lo < 1.0e-4)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.width = max(len(f"{v:.{p}f}") for v in finite)

    def format(self, v):
        p = PRINT_OPTS.precision
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.width}.{p}e}"
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{p}f}"
        return s.rjust(self.width)


class _ComplexFormatter:
    """A complex element as PyTorch writes it: the real part with one formatter, the
    imaginary part with another (each chosen from all the parts of its kind), joined by its
    sign and followed by ``j`` (``1.5000+2.0000j``, ``0.-1.j``)."""

    __slots__ = ("re", "im", "width")

    def __init__(self, values):
        self.re = _Formatter([v.real for v in values], True)
        self.im = _Formatter([v.imag for v in values], True)
        self.width = self.re.width + self.im.width + 1

    def format(self, v):
        imag = (self.im.format(v.imag) + "j").lstrip()
        return self.re.format(v.real) + (imag if imag[0] in "+-" else "+" + imag)


def _formatter(values, dt):
    return _ComplexFormatter(values) if dt.is_complex else _Formatter(values, dt.is_floating_point)


_ELLIPSIS = object()  # the place of the elided elements of a summarised dim


def _collect(values, shape, summarize, edge):
    """The printed elements as nested Python lists with :data:`_ELLIPSIS` where a
    summarised dim elides items. ``values`` holds those elements as nested lists of the
    tensor's ``shape`` cut by the backend's ``edge_items`` (``edge`` items kept at each end
    of every dim longer than ``2 * edge``) when ``summarize``, else all of them."""
    n = shape[0]
    cut = summarize and n > 2 * edge
    if len(shape) == 1:
        if summarize and not edge:
            return [_ELLIPSIS]
        if cut:
            return values[:edge] + [_ELLIPSIS] + values[edge:]
        return values
    rows = [_collect(v, shape[1:], summarize, edge) for v in values]
    if cut:
        return rows[:edge] + [_ELLIPSIS] + rows[edge:]
    return rows


def _flat(nested, out):
    for x in nested:
        if x is _ELLIPSIS:
            continue
        if isinstance(x, list):
            _flat(x, out)
        else:
            out.append(x)
    return out


def _vector_str(row, indent, fmt):
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (fmt.width + 2))))
    if len(row) == 1 and row[0] is _ELLIPSIS:
        data = ["..."]
    else:
        data = [" ..." if v is _ELLIPSIS else fmt.format(v) for v in row]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(nested, ndim, indent, fmt):
    if ndim == 1:
        return _vector_str(nested, indent, fmt)
    parts = ["..." if x is _ELLIPSIS else _nested_str(x, ndim - 1, indent + 1, fmt) for x in nested]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(t, indent):
    """The element part of the repr: ``[...]`` (or the scalar). Only the printed elements
    are read back to the host, through the backend (``edge_items``, ``to_list``); every
    formatting decision is made on those Python numbers."""
    be = t._device.backend
    a = t._data
    shape = tuple(a.shape)
    if not shape:
        v = be.to_list(a)
        return _formatter([v], t._dtype).format(v)
    summarize = math.prod(shape) > PRINT_OPTS.threshold
    edge = int(PRINT_OPTS.edgeitems)
    values = be.to_list(be.edge_items(a, edge) if summarize else a)
    nested = _collect(values, shape, summarize, edge)
    fmt = _formatter(_flat(nested, []), t._dtype)
    return _nested_str(nested, len(shape), indent, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    dt = t._dtype
    default = _dt.get_default_dtype()
    suffixes = []
    home = get_default_device()
    if t._device.type != home.type or (t._device.type != "cpu" and t._device is not home):
        suffixes.append(f"device='{t._device}'")
    size = math.prod(t._data.shape)
    if size == 0:
        if t._data.ndim != 1:
            suffixes.append(f"size={tuple(t._data.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(t._data.shape)}")
        if dt not in (default, _dt.int64, _dt.bool, _dt.get_default_complex_dtype()):
            suffixes.append(f"dtype={dt!r}")
        body = _body(t, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
