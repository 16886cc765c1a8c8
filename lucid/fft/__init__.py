r"""``lucid.fft``: discrete Fourier transforms, as ``torch.fft``.

Every transform is one of three registered ops (:mod:`lucid.ops.signal.fft`: complex-to-complex,
real-to-half-spectrum, half-spectrum-to-real), differentiable to any order, after the
signal is brought to the requested size: ``n`` (one dim) or ``s`` (several) trims or
zero-pads each transformed dim at its end, as PyTorch. ``norm`` is ``"backward"`` (the
default: the inverse divides by :math:`N`), ``"forward"`` (the forward divides) or
``"ortho"`` (both by :math:`\sqrt N`).

- ``fft``/``ifft``, ``fft2``/``ifft2``, ``fftn``/``ifftn``: complex (real input is taken
  as complex) to complex;
- ``rfft``, ``rfft2``, ``rfftn``: real to the :math:`n//2 + 1` non-negative frequencies of
  the last dim; ``irfft``, ``irfft2``, ``irfftn``: their inverses, ``n`` (default
  :math:`2(m - 1)`) the output's last size;
- ``hfft`` (``hfft2``, ``hfftn``): the real spectrum of a Hermitian signal given by its
  first half, :math:`\mathrm{irfft}(\bar x)` with ``norm`` swapped; ``ihfft``
  (``ihfft2``, ``ihfftn``): its inverse, :math:`\overline{\mathrm{rfft}(x)}` with ``norm``
  swapped;
- ``fftfreq``, ``rfftfreq``: the sample frequencies; ``fftshift``, ``ifftshift``: roll
  the zero frequency to the centre and back.

Integer inputs transform in the default float dtype; float16/bfloat16 are refused
(PyTorch's CPU refuses them too), except under autocast, which computes in float32.
"""

from __future__ import annotations

import builtins

from .. import dtypes as _dt
from .._tensor import Tensor
from ..errors import ArgumentError, ShapeError
from ..ops.creation.creation import arange
from ..ops.elementwise.complex import conj
from ..ops.signal.fft import fft_c2c, fft_c2r, fft_r2c
from ..ops.shape.padding import pad as _pad
from ..ops.shape.permute import roll

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(op, norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ArgumentError(
            f"{op}: invalid normalization mode {norm!r}; expected one of "
            f"{', '.join(map(repr, _NORMS))} or None"
        )
    return norm


def _tensor(op, x):
    if not isinstance(x, Tensor):
        raise ArgumentError(f"{op}: expected a Tensor input, got {type(x).__name__}")
    return x


def _dims(op, x, s, dim, default_all):
    """The transformed dims (non-negative, in order given) and their sizes."""
    nd = x.ndim
    if dim is None:
        dims = list(range(nd)) if s is None or default_all else list(range(nd - len(s), nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    out = []
    for d in dims:
        if nd == 0 or not -nd <= d < nd:
            raise ShapeError(
                f"{op}: dim {d} is out of range for a tensor of {nd} "
                f"dimension{'s' if nd != 1 else ''}"
            )
        out.append(d % nd)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: dims must be distinct, got {tuple(dims)}")
    if not out:
        raise ShapeError(f"{op}: expected at least one dim to transform")
    if s is None:
        sizes = [x.shape[d] for d in out]
    else:
        sizes = list(s)
        if len(sizes) != len(out):
            raise ShapeError(
                f"{op}: s and dim must have the same length, got s of length "
                f"{len(sizes)} and {len(out)} dims"
            )
    return out, sizes


def _resized(op, x, dims, sizes):
    """``x`` trimmed or zero-padded at the end of each of ``dims`` to ``sizes``."""
    for n in sizes:
        if n != -1 and n < 1:
            raise ShapeError(f"{op}: invalid number of data points ({n}) specified")
    if all(n == -1 or x.shape[d] == n for d, n in zip(dims, sizes)):
        return x
    want = {d: n for d, n in zip(dims, sizes) if n != -1}
    lo = builtins.min(want)
    pads = []
    for d in range(x.ndim - 1, lo - 1, -1):
        pads += [0, want[d] - x.shape[d] if d in want else 0]
    return _pad(x, pads)


def _check_sizes(op, x, dims):
    for d in dims:
        if x.shape[d] < 1:
            raise ShapeError(f"{op}: invalid number of data points (0) along dim {d}")


def _c2c(op, x, s, dim, norm, forward, default_all=True):
    x = _tensor(op, x)
    dims, sizes = _dims(op, x, s, dim, default_all)
    x = _resized(op, x, dims, sizes)
    _check_sizes(op, x, dims)
    return fft_c2c(x, dims, _norm(op, norm), forward)


def _r2c(op, x, s, dim, norm, default_all=True):
    x = _tensor(op, x)
    dims, sizes = _dims(op, x, s, dim, default_all)
    x = _resized(op, x, dims, sizes)
    _check_sizes(op, x, dims)
    return fft_r2c(x, dims, _norm(op, norm))


def _c2r(op, x, s, dim, norm, default_all=True):
    x = _tensor(op, x)
    dims, sizes = _dims(op, x, s, dim, default_all)
    last = sizes[-1] if s is not None and sizes[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise ShapeError(f"{op}: invalid number of data points ({last}) specified")
    x = _resized(op, x, dims, sizes[:-1] + [last // 2 + 1])
    _check_sizes(op, x, dims)
    return fft_c2r(x, dims, _norm(op, norm), last)


def fft(input, n=None, dim=-1, norm=None):
    """The 1-D DFT of ``input`` along ``dim`` (``n``: trim or zero-pad to ``n`` first)."""
    return _c2c("fft", input, None if n is None else (n,), dim, norm, True)


def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse DFT along ``dim``."""
    return _c2c("ifft", input, None if n is None else (n,), dim, norm, False)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT over ``dim`` (the last two by default)."""
    return _c2c("fft2", input, s, dim, norm, True)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D inverse DFT over ``dim``."""
    return _c2c("ifft2", input, s, dim, norm, False)


def fftn(input, s=None, dim=None, norm=None):
    """The N-D DFT over ``dim`` (every dim, or the last ``len(s)``, by default)."""
    return _c2c("fftn", input, s, dim, norm, True, default_all=False)


def ifftn(input, s=None, dim=None, norm=None):
    """The N-D inverse DFT over ``dim``."""
    return _c2c("ifftn", input, s, dim, norm, False, default_all=False)


def rfft(input, n=None, dim=-1, norm=None):
    """The DFT of real ``input`` along ``dim``: its ``n//2 + 1`` non-negative frequencies."""
    return _r2c("rfft", input, None if n is None else (n,), dim, norm)


def irfft(input, n=None, dim=-1, norm=None):
    """The real signal of length ``n`` (default ``2 (m - 1)``) whose half spectrum is
    ``input`` along ``dim``."""
    return _c2r("irfft", input, None if n is None else (n,), dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT of real ``input``, the last of ``dim`` halved."""
    return _r2c("rfft2", input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`rfft2`."""
    return _c2r("irfft2", input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    """The N-D DFT of real ``input``, the last of ``dim`` halved."""
    return _r2c("rfftn", input, s, dim, norm, default_all=False)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`rfftn`."""
    return _c2r("irfftn", input, s, dim, norm, default_all=False)


def hfft(input, n=None, dim=-1, norm=None):
    """The real DFT of a Hermitian-symmetric signal given by its first half ``input``
    along ``dim``: :math:`\\mathrm{irfft}(\\bar x)` with ``norm`` swapped."""
    return _c2r(
        "hfft",
        conj(_tensor("hfft", input)),
        None if n is None else (n,),
        dim,
        _SWAP[_norm("hfft", norm)],
    )


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`hfft` for real ``input``: the first half of its (Hermitian)
    inverse DFT, :math:`\\overline{\\mathrm{rfft}(x)}` with ``norm`` swapped."""
    return conj(_r2c("ihfft", input, None if n is None else (n,), dim, _SWAP[_norm("ihfft", norm)]))


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D :func:`hfft`: the last of ``dim`` holds the half signal."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D :func:`ihfft`."""
    return ihfftn(input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None):
    """The N-D :func:`hfft`: :math:`\\mathrm{irfftn}(\\bar x)` with ``norm`` swapped."""
    return _c2r(
        "hfftn",
        conj(_tensor("hfftn", input)),
        s,
        dim,
        _SWAP[_norm("hfftn", norm)],
        default_all=False,
    )


def ihfftn(input, s=None, dim=None, norm=None):
    """The N-D :func:`ihfft`: :math:`\\overline{\\mathrm{rfftn}(x)}` with ``norm``
    swapped."""
    return conj(_r2c("ihfftn", input, s, dim, _SWAP[_norm("ihfftn", norm)], default_all=False))


def _freq_dtype(op, dtype):
    dt = _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    if not dt.is_floating_point:
        raise ArgumentError(f"{op}: expected a floating dtype, got {dt.name}")
    return dt


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point DFT with spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)``."""
    if n < 1:
        raise ArgumentError(f"fftfreq: n must be positive, got {n}")
    dt = _freq_dtype("fftfreq", dtype)
    k = arange(n, dtype=_dt.int64, device=device)
    k = (k + n // 2) % n - n // 2
    out = k.to(dt) / (d * n)
    return out.requires_grad_() if requires_grad else out


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point real DFT:
    ``[0, 1, ..., n//2] / (d n)``."""
    if n < 1:
        raise ArgumentError(f"rfftfreq: n must be positive, got {n}")
    dt = _freq_dtype("rfftfreq", dtype)
    out = arange(n // 2 + 1, dtype=dt, device=device) / (d * n)
    return out.requires_grad_() if requires_grad else out


def _shift(op, x, dim, sign):
    x = _tensor(op, x)
    dims = list(range(x.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return x
    shifts = [sign * (x.shape[d] // 2) for d in dims]
    return roll(x, shifts, dims)


def fftshift(input, dim=None):
    """``input`` rolled so the zero frequency sits at the centre of each of ``dim`` (all
    dims by default): a roll by ``n // 2``."""
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`: a roll by ``-(n // 2)``."""
    return _shift("ifftshift", input, dim, -1)
