"""Statistics and numerical calculus composed from registered ops.

``quantile``, ``nanquantile``, ``nanmedian``, ``aminmax``, ``dist``, ``cov``, ``corrcoef``,
``trapezoid``, ``cumulative_trapezoid``, ``gradient``, ``renorm``, ``histogram`` and
``histogramdd``. Each is a Python composition of ops that already carry their own
gradients (sort, gather, where, sums, products), so every differentiable result is
differentiable to any order; the histograms are counts (no gradient) from one backend
kernel.
"""

from __future__ import annotations

import builtins as _b
import collections
import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor, tensor as _tensor_of
from ...errors import ArgumentError, DimError, DTypeError, ShapeError
from ..core._bind import install, tensor_method
from ..core.base import norm_dim, to_tensor
from ..core.inplace import apply_inplace
from .extrema import return_types as _rt
from ..binary.arith import div, floor_divide, sub
from ..binary.ternary import where
from ..creation.creation import full, linspace
from ..elementwise.fp_classify import isnan
from ..elementwise.sign_magnitude import clamp
from ..indexing.gather_scatter import gather
from ..linalg.products import matmul
from ..reduction.extrema import amax, amin, median
from ..reduction.norm import norm
from ..reduction.scans import cumsum, diff
from ..reduction.sort import sort
from ..shape.joins import cat
from ..shape.permute import movedim
from ..shape.reshape import broadcast_shapes
from ..shape.views import diagonal, narrow

__all__ = [
    "quantile",
    "nanquantile",
    "nanmedian",
    "aminmax",
    "dist",
    "cov",
    "corrcoef",
    "trapezoid",
    "trapz",
    "cumulative_trapezoid",
    "gradient",
    "renorm",
    "histogram",
    "histogramdd",
]

_wrap = Tensor._wrap
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _result_type(name, fields):
    cls = collections.namedtuple(name, fields, module="lucid.return_types")

    def _repr(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"lucid.return_types.{name}(\n{body})"

    cls.__repr__ = _repr
    setattr(_rt, name, cls)
    return cls


_Aminmax = _result_type("aminmax", ("min", "max"))
_Nanmedian = _result_type("nanmedian", ("values", "indices"))
_Histogram = _result_type("histogram", ("hist", "bin_edges"))
_Histogramdd = _result_type("histogramdd", ("hist", "bin_edges"))


def _floating_input(x, op, what="input"):
    if not x._dtype.is_floating_point:
        raise DTypeError(
            f"{op}(): {what} tensor must be either float or double dtype, got {x._dtype.name}"
        )


def _const_like(value, like, dtype=None):
    """A constant tensor of ``value`` (a number) in ``like``'s dtype and device."""
    dt = dtype or like._dtype
    be = like._device.backend
    return _wrap(be.full((), value, dt.np), dt, like._device)


# == quantiles and medians =================================================================


def _q_tensor(q, x, op):
    """``(q as a 1-D tensor of x's dtype, whether q was a scalar)``, range-checked."""
    if isinstance(q, Tensor):
        if q._dtype is not x._dtype:
            raise DTypeError(
                f"{op}(): q tensor must be same dtype as the input tensor "
                f"({q._dtype.name} vs {x._dtype.name})"
            )
        if q._data.ndim > 1:
            raise ShapeError(f"{op}(): q must be a scalar or 1D tensor, got {q._data.ndim}D")
        scalar = q._data.ndim == 0
        qt = q.detach().reshape(-1)
    elif isinstance(q, numbers.Real) and not isinstance(q, bool):
        scalar = True
        qt = _tensor_of([float(q)], dtype=x._dtype, device=x._device)
    else:
        raise DTypeError(f"{op}(): q must be a float or a Tensor, got {type(q).__name__}")
    if qt._data.size and bool(((qt < 0) | (qt > 1)).any()):
        raise ArgumentError(f"{op}(): q values must be in the range [0, 1]")
    return qt, scalar


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, op):
    x = to_tensor(input)
    if x._dtype not in (_dt.float32, _dt.float64):
        raise DTypeError(
            f"{op}(): input tensor must be either float or double dtype, got {x._dtype.name}"
        )
    if interpolation not in _INTERPOLATIONS:
        raise ArgumentError(
            f"{op}(): interpolation must be one of {', '.join(_INTERPOLATIONS)}"
            f"; got '{interpolation}'"
        )
    qt, scalar = _q_tensor(q, x, op)
    if x._data.size == 0:
        raise ShapeError(f"{op}(): input tensor must be non-empty")
    nd = x._data.ndim
    if dim is None:
        xs = x.reshape(-1)
        rest = ()
        kept = (1,) * nd
    else:
        d = norm_dim(dim, nd, op)
        xs = x.reshape(1) if nd == 0 else movedim(x, d, -1)
        rest = tuple(xs.shape[:-1])
        kept = tuple(1 if i == d else s for i, s in enumerate(x.shape)) if nd else ()
    n = xs.shape[-1]
    srt = sort(xs, -1).values
    k = qt.shape[0]
    nan = isnan(srt)
    if ignore_nan:
        cnt = (~nan).sum(-1, keepdim=True).to(x._dtype)
    else:
        cnt = _const_like(float(n), x)
    qb = qt.reshape((k,) + (1,) * len(rest) + (1,))
    rank = qb * (cnt - 1)
    if interpolation == "lower":
        lo = hi = rank.floor()
    elif interpolation == "higher":
        lo = hi = rank.ceil()
    elif interpolation == "nearest":
        lo = hi = rank.round()
    else:
        lo, hi = rank.floor(), rank.ceil()
    big = tuple((k,) + rest + (n,))
    src = srt.unsqueeze(0).expand(big)
    lo_i = lo.clamp(0, n - 1).to(_dt.int64).expand((k,) + rest + (1,))
    hi_i = hi.clamp(0, n - 1).to(_dt.int64).expand((k,) + rest + (1,))
    v_lo = gather(src, -1, lo_i)
    v_hi = gather(src, -1, hi_i)
    if interpolation == "linear":
        w = (rank - lo).expand(v_lo.shape)
        out = v_lo + w * (v_hi - v_lo)
    elif interpolation == "midpoint":
        out = (v_lo + v_hi) * 0.5
    else:
        out = v_lo
    out = out.squeeze(-1)
    bad = (cnt == 0).squeeze(-1) if ignore_nan else nan.any(-1)
    out = where(bad.unsqueeze(0).expand(out.shape), _const_like(math.nan, x), out)
    if keepdim:
        out = out.reshape((k,) + kept)
    if scalar:
        out = out.squeeze(0) if out.ndim else out
        if out.ndim and out.shape[0] == 1 and not keepdim and dim is None:
            out = out.reshape(())
    return out


@tensor_method("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of ``input`` along ``dim`` (all elements when None); any nan
    in a slice gives nan. ``q``: a float or a 1-D tensor in [0, 1] (its dim comes first)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@tensor_method("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` ignoring nan (a slice of only nan gives nan)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


@tensor_method("nanmedian")
def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-nan values: a 0-d tensor without ``dim``, else
    ``(values, indices)`` along ``dim``; a slice of only nan gives nan."""
    x = to_tensor(input)
    if dim is not None:  # the dim first, as PyTorch
        norm_dim(dim, max(x._data.ndim, 1), "nanmedian")
    if x._dtype is _dt.bool:
        raise DTypeError("nanmedian(): not implemented for bool tensors")
    if dim is None:
        if x._data.size == 0:
            return _const_like(math.nan, x) if x._dtype.is_floating_point else median(x)
        flat = x.reshape(-1)
        return nanmedian(flat, 0).values.reshape(())
    nd = x._data.ndim
    d = norm_dim(dim, nd, "nanmedian")
    xs = x.reshape(1) if nd == 0 else movedim(x, d, -1)
    if xs.shape[-1] == 0:
        raise DimError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    srt, idx = sort(xs, -1)
    if x._dtype.is_floating_point:
        cnt = (~isnan(srt)).sum(-1, keepdim=True)
    else:
        cnt = full(tuple(xs.shape[:-1]) + (1,), xs.shape[-1], dtype=_dt.int64, device=x._device)
    k = floor_divide((cnt - 1).clamp(min=0), 2)
    vals = gather(srt, -1, k)
    inds = gather(idx, -1, k)
    if keepdim and nd:
        vals, inds = movedim(vals, -1, d), movedim(inds, -1, d)
    else:
        vals, inds = vals.squeeze(-1), inds.squeeze(-1)
        if nd == 0:
            vals, inds = vals.reshape(()), inds.reshape(())
    return _Nanmedian(vals, inds)


@tensor_method("aminmax")
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of ``input`` (along ``dim`` when given) in one call."""
    x = to_tensor(input)
    nd = x._data.ndim
    if dim is None:
        if x._data.size == 0:
            raise ShapeError(
                "aminmax(): cannot compute aminmax over an empty dimension as "
                "the operation has no identity"
            )
        dims = tuple(range(nd))
    else:
        d = norm_dim(dim, nd, "aminmax")
        if nd and x._data.shape[d] == 0:
            raise ShapeError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if nd else ()
    if not dims:
        lo, hi = x.clone(), x.clone()
    else:
        lo = amin(x, dims, keepdim)
        hi = amax(x, dims, keepdim)
    return _Aminmax(lo, hi)


# == distances, covariance =================================================================


@tensor_method("dist")
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcasting) over all elements."""
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise DTypeError(f"dist(): p must be a real number, got {type(p).__name__}")
    a = to_tensor(input)
    b = to_tensor(other, a)
    rd = _dt.result_type(a, b)
    if a._dtype is _dt.bool or b._dtype is _dt.bool:
        raise DTypeError("dist(): bool tensors are not supported (their difference is undefined)")
    if rd._cat < 2:
        raise DTypeError(
            f"dist(): input dtype should be floating point, got {rd.name} (the "
            f"promoted dtype of {a._dtype.name} and {b._dtype.name})"
        )
    return norm(sub(a, b).reshape(-1), p)


@tensor_method("cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (a 1-D input is one
    variable: a 0-d result), with frequency and/or observation weights."""
    return _cov(input, correction, fweights, aweights, "cov")


def _cov(input, correction, fweights, aweights, op):
    x = to_tensor(input)
    if x._data.ndim > 2:
        raise ShapeError(
            f"{op}(): expected input to have two or fewer dimensions but got an "
            f"input with {x._data.ndim} dimensions"
        )
    if not isinstance(correction, numbers.Integral) or isinstance(correction, bool):
        raise DTypeError(f"{op}(): correction must be an int, got {type(correction).__name__}")
    if x._dtype is _dt.bool:
        raise DTypeError(f"{op}(): bool dtype is not supported for input")
    one = x._data.ndim < 2
    if one:
        x = x.reshape(1, -1)
    if not x._dtype.is_floating_point:
        x = x.to(_dt.get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        fw = to_tensor(fweights, x)
        if fw._dtype.is_floating_point:
            raise DTypeError(f"{op}(): expected fweights to have integral dtype")
        _check_weights(fw, n_obs, "fweights", op)
        if bool((fw < 0).any()):
            raise ArgumentError(f"{op}(): fweights cannot be negative")
        w = fw.to(x._dtype)
    aw = None
    if aweights is not None:
        aw = to_tensor(aweights, x)
        if not aw._dtype.is_floating_point:
            raise DTypeError(f"{op}(): expected aweights to have floating point dtype")
        _check_weights(aw, n_obs, "aweights", op)
        if bool((aw < 0).any()):
            raise ArgumentError(f"{op}(): aweights cannot be negative")
        aw = aw.to(x._dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = x.mean(1)
        norm_f = n_obs - correction
    else:
        w_sum_t = w.sum()
        avg = (x * w).sum(1) / w_sum_t
        if correction == 0:
            norm_f = w_sum_t
        elif aw is None:
            norm_f = w_sum_t - correction
        else:
            norm_f = w_sum_t - correction * (w * aw).sum() / w_sum_t
    if isinstance(norm_f, Tensor):
        norm_f = clamp(norm_f, min=0)
    else:
        norm_f = _b.max(norm_f, 0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = matmul(xw, xm.t())
    c = c / norm_f if isinstance(norm_f, Tensor) else div(c, float(norm_f))
    return c.reshape(()) if one or c.shape == (1, 1) else c


def _check_weights(w, n_obs, name, op):
    if w._data.ndim > 1:
        raise ShapeError(
            f"{op}(): expected {name} to have one or fewer dimensions but got {w._data.ndim}"
        )
    if w._data.size != n_obs:
        raise ShapeError(
            f"{op}(): expected {name} to have the same numel as there are "
            f"observations in the input but got {w._data.size} != {n_obs}"
        )


@tensor_method("corrcoef")
def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``."""
    c = _cov(input, 1, None, None, "corrcoef")
    if c.ndim == 0:
        return c / c
    sd = diagonal(c).sqrt()
    c = c / sd.unsqueeze(1)
    c = c / sd.unsqueeze(0)
    return clamp(c, -1, 1)


# == integration and differentiation =======================================================


def _spacing_along(x, y, d, op):
    """The intervals ``diff(x)`` along dim ``d`` of ``y``: a 1-D ``x`` of y's length along
    ``d`` is laid along that dim; otherwise ``x`` broadcasts against ``y``."""
    x = to_tensor(x, y)
    if x._data.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise ShapeError(
                f"{op}(): there must be one `x` value for each sample point "
                f"(got {x.shape[0]} x values and {y.shape[d]} samples)"
            )
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        return diff(x, dim=0).reshape(
            [s if i != d else _b.max(s - 1, 0) for i, s in enumerate(shape)]
        )
    try:
        broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ShapeError:
        raise ShapeError(
            f"{op}(): x of shape {tuple(x.shape)} cannot broadcast against y of "
            f"shape {tuple(y.shape)}"
        ) from None
    dd = d - y.ndim + x.ndim
    if dd < 0:
        raise ShapeError(f"{op}(): x of shape {tuple(x.shape)} has no dim matching dim {d} of y")
    return diff(x, dim=dd)


def _trapezoid_terms(y, x, dx, dim, op):
    y = to_tensor(y)
    if y._data.ndim == 0:
        raise DimError(f"{op}(): dimension specified as {dim} but tensor has no dimensions")
    d = norm_dim(dim, y._data.ndim, op)
    if x is not None and dx is not None:
        raise ArgumentError(f"{op}(): cannot pass both x and dx")
    if y._dtype is _dt.bool:
        raise DTypeError(f"{op}(): received a bool input for `y`, but bool is not supported")
    n = y.shape[d]
    if n == 0:  # nothing to integrate: zeros in y's own dtype (PyTorch)
        return None, y, d
    if not y._dtype.is_floating_point:
        y = y.to(_dt.get_default_dtype())
    left = narrow(y, d, 0, n - 1)
    right = narrow(y, d, 1, n - 1)
    mid = (left + right) * 0.5
    if x is None:
        step = 1.0 if dx is None else dx
        if isinstance(step, Tensor):
            return mid * step, y, d
        if not isinstance(step, numbers.Real) or isinstance(step, bool):
            raise DTypeError(f"{op}(): dx must be a number, got {type(step).__name__}")
        return mid * float(step), y, d
    return mid * _spacing_along(x, y, d, op), y, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``: sample points ``x`` (1-D, or broadcasting with
    ``y``) or uniform spacing ``dx`` (default 1)."""
    terms, y, d = _trapezoid_terms(y, x, dx, dim, "trapezoid")
    if terms is None:
        return y.sum(d, dtype=y._dtype) * 0
    if y.shape[d] == 1:  # no interval: 0, but nan/inf in y still give nan (PyTorch)
        return (y * 0.0).sum(d)
    return terms.sum(d)


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim`` (one value fewer than ``y``)."""
    terms, y, d = _trapezoid_terms(y, x, dx, dim, "cumulative_trapezoid")
    if terms is None:
        return y.clone() if y._dtype.is_floating_point else y.to(_dt.get_default_dtype())
    return cumsum(terms, d)


def _gradient_dims(dim, nd):
    if dim is None:
        return list(range(nd))
    if isinstance(dim, numbers.Integral):
        return [norm_dim(dim, nd, "gradient")]
    dims = [norm_dim(d, nd, "gradient") for d in dim]
    if len(set(dims)) != len(dims):
        raise DimError(f"gradient(): dim {tuple(dim)} appears multiple times in the list of dims")
    return dims


def _gradient_1d(f, d, h, edge_order):
    """Second-order central differences along ``d`` with spacing ``h`` (a number, or a
    tensor of the ``n - 1`` intervals laid along ``d``), one-sided at the ends."""
    n = f.shape[d]

    def sl(start, length, t=f):
        return narrow(t, d, start, length)

    if isinstance(h, Tensor):
        h0, h1 = sl(0, n - 2, h), sl(1, n - 2, h)
        a = -h1 / (h0 * (h0 + h1))
        b = (h1 - h0) / (h0 * h1)
        c = h0 / (h1 * (h0 + h1))
        inner = a * sl(0, n - 2) + b * sl(1, n - 2) + c * sl(2, n - 2)
        if edge_order == 1:
            first = (sl(1, 1) - sl(0, 1)) / sl(0, 1, h)
            last = (sl(n - 1, 1) - sl(n - 2, 1)) / sl(n - 2, 1, h)
        else:
            e0, e1 = sl(0, 1, h), sl(1, 1, h)
            first = (
                -(2 * e0 + e1) / (e0 * (e0 + e1)) * sl(0, 1)
                + (e0 + e1) / (e0 * e1) * sl(1, 1)
                - e0 / (e1 * (e0 + e1)) * sl(2, 1)
            )
            p, q = sl(n - 3, 1, h), sl(n - 2, 1, h)
            last = (
                q / (p * (p + q)) * sl(n - 3, 1)
                - (p + q) / (p * q) * sl(n - 2, 1)
                + (2 * q + p) / (q * (p + q)) * sl(n - 1, 1)
            )
        return cat([first, inner, last], d)
    inner = (sl(2, n - 2) - sl(0, n - 2)) / (2.0 * h)
    if edge_order == 1:
        first = (sl(1, 1) - sl(0, 1)) / h
        last = (sl(n - 1, 1) - sl(n - 2, 1)) / h
    else:
        first = (-1.5 * sl(0, 1) + 2.0 * sl(1, 1) - 0.5 * sl(2, 1)) / h
        last = (0.5 * sl(n - 3, 1) - 2.0 * sl(n - 2, 1) + 1.5 * sl(n - 1, 1)) / h
    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of the derivative of ``input`` along each of ``dim`` (all dims when None)
    by second-order central differences, one-sided (order ``edge_order``: 1 or 2) at the
    ends; returns a tuple with one tensor per dim. ``spacing``: a number, a list of numbers
    (one per dim), or a list of 1-D coordinate tensors (one per dim)."""
    f = to_tensor(input)
    nd = f._data.ndim
    if nd == 0:
        raise DimError("gradient(): expected the input to have at least one dimension")
    if edge_order not in (1, 2):
        raise ArgumentError(f"gradient(): edge_order must be 1 or 2, got {edge_order}")
    dims = _gradient_dims(dim, nd)
    if f._dtype in (_dt.bool, _dt.uint8):
        raise DTypeError(
            f"gradient(): {f._dtype.name} input is not supported (as in "
            "PyTorch: differences of bools are undefined, of uint8 wrap)"
        )
    if not f._dtype.is_floating_point:
        f = f.to(_dt.get_default_dtype())
    if isinstance(spacing, (numbers.Real, Tensor)) and not (
        isinstance(spacing, Tensor) and spacing._data.ndim > 0
    ):
        sp = [spacing] * len(dims)
    else:
        sp = list(spacing)
        if len(sp) != len(dims):
            raise ShapeError(
                f"gradient(): expected spacing to be unspecified, a scalar or a "
                f"list of length {len(dims)} (one per dim), got a list of "
                f"length {len(sp)}"
            )
    out = []
    for d, h in zip(dims, sp):
        if f.shape[d] < edge_order + 1:
            raise ShapeError(
                f"gradient(): expected each dimension size to be at least "
                f"edge_order+1 ({edge_order + 1}), got size {f.shape[d]} along "
                f"dim {d}"
            )
        if isinstance(h, Tensor) and h._data.ndim == 1:
            if h.shape[0] != f.shape[d]:
                raise ShapeError(
                    f"gradient(): expected the coordinates of dim {d} to have "
                    f"{f.shape[d]} entries, got {h.shape[0]}"
                )
            shape = [1] * nd
            shape[d] = f.shape[d] - 1
            h = diff(h.to(f._dtype), dim=0).reshape(shape)
        elif isinstance(h, Tensor):
            h = h.item()
        elif not isinstance(h, numbers.Real) or isinstance(h, bool):
            raise DTypeError(
                f"gradient(): spacing must be numbers or 1-D tensors, got {type(h).__name__}"
            )
        out.append(_gradient_1d(f, d, h if isinstance(h, Tensor) else float(h), edge_order))
    return tuple(out)


# == renorm ================================================================================


@tensor_method("renorm")
def renorm(input, p, dim, maxnorm):
    """Each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm`` rescaled to
    norm ``maxnorm`` (PyTorch's ``maxnorm / (norm + 1e-7)``)."""
    x = to_tensor(input)
    _floating_input(x, "renorm")
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or p <= 0:
        raise ArgumentError(f"renorm(): non-positive norm not supported, got p={p}")
    if not isinstance(maxnorm, numbers.Real) or maxnorm < 0:
        raise ArgumentError(f"renorm(): expected maxnorm to be >= 0 but got {maxnorm}")
    nd = x._data.ndim
    if nd <= 1:
        raise DimError(f"renorm(): input needs at least 2 dimensions, got {nd} dimensions")
    d = norm_dim(dim, nd, "renorm")
    others = tuple(i for i in range(nd) if i != d)
    norms = norm(x, p, others, True)
    scale = where(norms > maxnorm, maxnorm / (norms + 1e-7), _const_like(1.0, x))
    return x * scale


install(renorm_=lambda self, p, dim, maxnorm: apply_inplace(renorm, self, p, dim, maxnorm))


# == histograms ============================================================================


def _hist_input(input, op):
    x = to_tensor(input)
    if x._dtype not in (_dt.float32, _dt.float64):
        raise DTypeError(
            f"{op}(): input tensor must be either float or double dtype, got {x._dtype.name}"
        )
    return x


def _edges_of(col, bins, lo_hi, dt, dev, op, k):
    """The edge tensor of one dim: given edges, or ``bins`` uniform bins over ``lo_hi`` or
    the data's range (an empty range widened by 0.5 each side, like NumPy)."""
    if isinstance(bins, Tensor):
        if bins._data.ndim != 1 or bins._data.size < 1:
            raise ShapeError(
                f"{op}(): bins tensor should have one dimension and at least 1 "
                f"element, got shape {tuple(bins.shape)}"
            )
        if bins._dtype is not dt:
            raise DTypeError(
                f"{op}(): bins must have the same dtype as input ({dt.name}), "
                f"got {bins._dtype.name}"
            )
        if bins._data.size > 1 and bool((diff(bins) < 0).any()):
            raise ArgumentError(f"{op}(): bin edges must be increasing (dim {k})")
        return bins.detach()
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise DTypeError(f"{op}(): bins must be an int or a 1-D tensor, got {type(bins).__name__}")
    if bins <= 0:
        raise ArgumentError(f"{op}(): bins must be > 0, but got {bins} for dimension {k}")
    if lo_hi is None:
        if col._data.size:
            lo, hi = float(amin(col)), float(amax(col))
        else:  # no data: the unit range, as NumPy and PyTorch
            lo, hi = 0.0, 1.0
    else:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ArgumentError(f"{op}(): range of [{lo}, {hi}] is not finite")
        if lo > hi:
            raise ArgumentError(f"{op}(): max must be larger than min, got [{lo}, {hi}]")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ArgumentError(f"{op}(): range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, int(bins) + 1, dtype=dt, device=dev)


def _histdd(x, bins, range_, weight, density, op):
    """``(hist, [edges per dim])`` of the points in the last dim of ``x``."""
    if x._data.ndim < 1:
        raise DimError(f"{op}(): input should have at least 1 dimension")
    npts = x.reshape(-1, x.shape[-1]) if x._data.ndim >= 2 else x.reshape(-1, 1)
    nd = npts.shape[1]
    if isinstance(bins, (Tensor, numbers.Integral)) and not isinstance(bins, bool):
        bins_l = [bins] * nd
    else:
        bins_l = list(bins)
    if len(bins_l) != nd:
        raise ShapeError(
            f"{op}(): expected {nd} sequences of bin edges or bin counts for "
            f"{nd}-dimensional points, got {len(bins_l)}"
        )
    if range_ is not None:
        r = list(range_)
        if len(r) != 2 * nd:
            raise ShapeError(
                f"{op}(): expected range to have {2 * nd} elements for {nd}-"
                f"dimensional points, got {len(r)}"
            )
        ranges = [(r[2 * k], r[2 * k + 1]) for k in range(nd)]
    else:
        ranges = [None] * nd
    edges = [
        _edges_of(npts[:, k], b, rg, x._dtype, x._device, op, k)
        for k, (b, rg) in enumerate(zip(bins_l, ranges))
    ]
    w = None
    if weight is not None:
        w = to_tensor(weight, x)
        if w._dtype is not x._dtype:
            raise DTypeError(
                f"{op}(): weight must have the same dtype as input "
                f"({x._dtype.name}), got {w._dtype.name}"
            )
        if tuple(w.shape) != tuple(x.shape[:-1] if x._data.ndim >= 2 else x.shape):
            raise ShapeError(
                f"{op}(): weight should have the same shape as the input "
                f"excluding the points dimension, got {tuple(w.shape)}"
            )
        w = w.detach().reshape(-1)._data
    be = x._device.backend
    counts = be.histogramdd(npts.detach()._data, [e._data for e in edges], w)
    hist = _wrap(counts, x._dtype, x._device)
    if density:
        total = hist.sum()
        hist = hist / total
        for k, e in enumerate(edges):
            shape = [1] * nd
            shape[k] = -1
            hist = hist / diff(e).reshape(shape)
    return hist, edges


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: counts of ``input`` in ``bins`` (an int: equal bins over
    ``range`` or the data's range; or a 1-D tensor of increasing edges); the last bin is
    closed. ``weight`` weighs each element; ``density`` normalises to a density."""
    x = _hist_input(input, "histogram")
    if isinstance(bins, Tensor) and bins._data.ndim != 1:
        raise ShapeError(
            f"histogram(): bins tensor should have one dimension, got {bins._data.ndim}"
        )
    if weight is not None:
        w = to_tensor(weight, x)
        if tuple(w.shape) != tuple(x.shape):
            raise ShapeError(
                f"histogram(): weight should have the same shape as input, got "
                f"{tuple(w.shape)} and {tuple(x.shape)}"
            )
        weight = w.reshape(-1)
    hist, edges = _histdd(x.reshape(-1), bins, range, weight, density, "histogram")
    return _Histogram(hist, edges[0])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)`` of the points in the last dim of ``input`` (shape
    ``(..., D)``): ``bins`` an int, a list of ``D`` ints or a list of ``D`` edge tensors;
    ``range`` a flat list ``[min0, max0, min1, max1, ...]``; ``bin_edges`` a tuple of
    one edge tensor per dim."""
    x = _hist_input(input, "histogramdd")
    if x._data.ndim < 2:
        raise DimError(
            f"histogramdd(): input should have at least 2 dimensions, got {x._data.ndim}"
        )
    hist, edges = _histdd(x, bins, range, weight, density, "histogramdd")
    return _Histogramdd(hist, tuple(edges))


install(histogram=histogram)
