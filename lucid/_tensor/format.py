"""``repr`` of a tensor in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt

_THRESHOLD = 1000
_EDGE = 3
_IMPLICIT = (_dt.float32, _dt.int64, _dt.bool)


def _float_formatter(a):
    """PyTorch's rules: integral values as ``3.``, scientific when the finite non-zero
    magnitudes span more than 1e3 or exceed 1e8 (or, for non-integral values, go below
    1e-4), else 4 decimals."""
    finite = a[np.isfinite(a)]
    nz = np.abs(finite[finite != 0])
    hi = float(nz.max()) if nz.size else 0.0
    lo = float(nz.min()) if nz.size else 0.0
    wide = nz.size and (hi / lo > 1e3 or hi > 1e8)
    if np.all(finite == np.round(finite)):
        body = (lambda v: f"{v:.4e}") if wide else (lambda v: f"{v:.0f}.")
    elif wide or (nz.size and lo < 1e-4):
        body = lambda v: f"{v:.4e}"
    else:
        body = lambda v: f"{v:.4f}"
    return lambda v: _special(v) or body(v)


def _padded(fmt, a):
    """``fmt`` right-aligned to the widest formatted element, as PyTorch pads."""
    width = max((len(fmt(v)) for v in a.ravel()), default=0)
    return lambda v: fmt(v).rjust(width)


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _shown(a):
    """The elements a summarised print shows (edges only for large tensors)."""
    if a.size <= _THRESHOLD or a.ndim == 0:
        return a
    idx = tuple(np.r_[0:min(_EDGE, n), max(n - _EDGE, _EDGE):n] for n in a.shape)
    return a[np.ix_(*idx)]


def tensor_repr(t) -> str:
    a = t._device.backend.to_numpy(t._data)
    dt = t._dtype
    if dt in (_dt.float16, _dt.bfloat16):
        a = a.astype(np.float32)
    if dt.is_floating_point:
        shown = _shown(a).astype(np.float64)
        formatter = {"float_kind": _padded(_float_formatter(shown), shown)}
    elif dt is _dt.bool:
        formatter = {"bool": _padded(lambda v: "True" if v else "False", _shown(a))}
    else:
        formatter = {"int": _padded(str, _shown(a))}
    suffix = []
    if t._device.type != "cpu":
        suffix.append(f"device='{t._device}'")
    if a.size == 0 or dt not in _IMPLICIT:
        if a.size == 0 and a.ndim != 1:
            suffix.append(f"size={tuple(a.shape)}")
        if dt not in _IMPLICIT:
            suffix.append(f"dtype={dt!r}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    if a.size == 0:
        body = "[]"
    else:
        body = np.array2string(a, separator=", ", prefix="tensor(", formatter=formatter,
                               threshold=_THRESHOLD, edgeitems=_EDGE, max_line_width=80)
    inner = body + "".join(", " + s for s in suffix)
    return f"tensor({inner})"
