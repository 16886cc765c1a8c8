"""``repr`` of a tensor in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt

_THRESHOLD = 1000
_EDGE = 3
_IMPLICIT = (_dt.float32, _dt.int64, _dt.bool)


def _float_formatter(a):
    finite = a[np.isfinite(a)]
    if finite.size == 0:
        return lambda v: _special(v) or f"{v:.4f}"
    mags = np.abs(finite)
    nz = mags[mags > 0]
    hi = float(mags.max())
    lo = float(nz.min()) if nz.size else 0.0
    if np.all(finite == np.round(finite)) and hi < 1e8:
        body = lambda v: f"{v:.0f}."
    elif hi >= 1e8 or (lo and (lo < 1e-4 or hi / lo > 1e3)):
        body = lambda v: f"{v:.4e}"
    else:
        body = lambda v: f"{v:.4f}"
    return lambda v: _special(v) or body(v)


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def tensor_repr(t) -> str:
    a = t._device.backend.to_numpy(t._data)
    dt = t._dtype
    if dt in (_dt.float16, _dt.bfloat16):
        a = a.astype(np.float32)
    if dt.is_floating_point:
        fmt = _float_formatter(a.astype(np.float64))
        formatter = {"float_kind": fmt}
    elif dt is _dt.bool:
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = {"int": str}
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
