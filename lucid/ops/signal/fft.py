r"""The discrete Fourier transform as three registered ops, the primitives of
:mod:`lucid.fft`.

Over the transformed dims :math:`D` (sizes :math:`n_d`, :math:`N = \prod_d n_d`) the
unnormalised transform is

.. math:: \hat x_k = \sum_j x_j\, e^{-2\pi i \sum_d j_d k_d / n_d}

(the inverse with :math:`+`), scaled by ``norm``: ``"backward"`` (the default) leaves the
forward transform unscaled and divides the inverse by :math:`N`, ``"forward"`` the other
way round, ``"ortho"`` divides both by :math:`\sqrt N`.

- ``fft_c2c``: complex (or real) to complex, forward or inverse (``fft``, ``ifft``,
  ``fftn``, ...);
- ``fft_r2c``: real to the one-sided half spectrum, :math:`n//2 + 1` bins along the last
  dim (``rfft``, ``rfftn``, and ``ihfft``);
- ``fft_c2r``: a half spectrum to the real signal of length :math:`n` along the last dim
  whose spectrum it is, the other bins implied by Hermitian symmetry (``irfft``,
  ``irfftn``, and ``hfft``).

Sizes (``n``, ``s``) are applied by :mod:`lucid.fft` before the op (zero padding or
trimming, differentiable ops of their own), so an op transforms its input as it is.

Gradients follow PyTorch's convention for complex tensors (see
:mod:`lucid.ops.elementwise.complex`). ``fft_c2c`` is linear over :math:`\mathbb C` with a
symmetric matrix, so its formula is the same transform of :math:`g` and the holomorphic rule
conjugates around it (the adjoint: the inverse transform with the matching scale). The
half-spectrum ops are linear over :math:`\mathbb R` only; with :math:`w_k = 1` at :math:`k = 0`
(and at :math:`n/2` for even :math:`n`), :math:`w_k = 2` elsewhere (the bins that stand for a
conjugate pair), and ``norm`` swapped (backward and forward exchange, ortho stays):

.. math:: \mathrm{grad}_x = \mathrm{c2r}(g / w), \qquad \mathrm{grad}_y = w\,\mathrm{r2c}(g)

for :math:`y = \mathrm{r2c}(x)` and :math:`x = \mathrm{c2r}(y)`. Both are transforms
again, so every order of derivative exists.
"""

from __future__ import annotations

from ... import dtypes as _dt
from ...errors import DTypeError
from ..core._formula import const
from ..core.base import UnaryOp
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema

__all__ = []

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _schema(name, complex_grad):
    # FORCE_FP32: autocast runs transforms in float32 (as PyTorch's), half inputs are
    # refused otherwise; integers transform in the default float dtype
    return OpSchema(name, 1, AmpPolicy.FORCE_FP32, real_valued=True, complex_grad=complex_grad)


def _check_float(op, a, complex_ok):
    """Refuse half and (where the op takes none) complex arrays; checked at the dispatch,
    after autocast has cast half inputs to float32."""
    dt = _dt.from_numpy_dtype(a.dtype)
    if dt in (_dt.float16, _dt.bfloat16) or (dt.is_complex and not complex_ok):
        want = "float32/float64" + (" or complex64/complex128" if complex_ok else "")
        raise DTypeError(f"{op}: expected a {want} tensor, got dtype {dt.name}")


def _weights(be, n, m, g):
    """:math:`w` over the last dim (``m`` half-spectrum bins of a length-``n`` signal) as
    a constant operand of ``g``."""
    return const(be.hermitian_weights(n, m, _dt.as_dtype(g.dtype).to_real().np), g)


@register
class FftC2cBackward(UnaryOp):
    r"""Autograd node for the complex DFT over ``axes`` (forward or inverse).

    Saves nothing: the transform is linear.

    Math
    ----
    .. math:: y = c\, F x, \qquad F_{jk} = e^{\mp 2\pi i\, j k / n} \ (\text{per axis}),
        \qquad \mathrm{grad}_x = c\, F^{\mathsf H} g

    with :math:`c` the ``norm`` scale of the direction. :math:`F` is symmetric, so the
    formula is the same transform of :math:`g`, conjugated around by the holomorphic rule.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fft_c2c"``, ``AmpPolicy.FORCE_FP32``, ``real_valued`` (integers in the default
        float dtype), ``complex_grad="holomorphic"``. Params: ``axes`` (non-negative,
        distinct), ``norm`` (``"backward"``, ``"forward"``, ``"ortho"``), ``forward``.
    saves_input, saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.fft.fftn`` / ``xp.fft.ifftn`` (NumPy's pocketfft on the CPU, cuFFT on
    CUDA), float32 and complex64 in single precision. A real input gives a complex output
    and keeps the real part of its gradient. Half dtypes are refused (PyTorch's CPU does
    too); under autocast they transform in float32.
    """

    __slots__ = ()
    schema_v1 = _schema("fft_c2c", "holomorphic")

    @staticmethod
    def dispatch(be, x, axes, norm, forward):
        _check_float("fft", x, True)
        return be.fft_c2c(x, axes, norm, forward)

    def grad(self, F, g, x, out):
        p = self.params
        return F.fft_c2c(g, p["axes"], p["norm"], p["forward"])


@register
class FftR2cBackward(UnaryOp):
    r"""Autograd node for the one-sided real DFT over ``axes`` (the last one halved).

    Saves nothing: the transform is linear over :math:`\mathbb R`.

    Math
    ----
    .. math:: y = c\, (F x)_{\ldots,\, 0 \le k \le n/2}, \qquad
        \mathrm{grad}_x = \mathrm{c2r}_{n}(g / w)

    (``norm`` swapped; see the module doc for :math:`w`).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fft_r2c"``, ``AmpPolicy.FORCE_FP32``, ``real_valued``; complex input refused.
        Params: ``axes``, ``norm``.
    saves_input, saves_output : bool
        False (the input's last size is kept in the node's metadata).

    Notes
    -----
    Backends: ``xp.fft.rfftn``. The output's last dim has :math:`n//2 + 1` bins.
    """

    __slots__ = ()
    schema_v1 = _schema("fft_r2c", "custom")

    @staticmethod
    def dispatch(be, x, axes, norm):
        _check_float("rfft", x, False)
        return be.fft_r2c(x, axes, norm)

    def grad(self, F, g, x, out):
        p = self.params
        n = self.in_meta[0][0][p["axes"][-1]]
        m = g.shape[p["axes"][-1]]
        w = _weights(self.be, n, m, g)
        w = F.reshape(w, (m,) + (1,) * (len(g.shape) - 1 - p["axes"][-1]))
        return F.fft_c2r(g / w, p["axes"], _SWAP[p["norm"]], n)


@register
class FftC2rBackward(UnaryOp):
    r"""Autograd node for the real signal of a half spectrum over ``axes`` (the last one
    of length ``last`` in the output).

    Saves nothing: the transform is linear over :math:`\mathbb R`.

    Math
    ----
    .. math:: x = c\, F^{-1} \big[y, \text{its Hermitian mirror}\big], \qquad
        \mathrm{grad}_y = w\, \mathrm{r2c}(g)

    (``norm`` swapped; see the module doc for :math:`w`). The imaginary parts of the
    :math:`k = 0` (and even :math:`n`'s :math:`n/2`) bins do not reach the output, and
    their gradient is 0.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"fft_c2r"``, ``AmpPolicy.FORCE_FP32``, ``real_valued``,
        ``complex_grad="custom"``. Params: ``axes``, ``norm``, ``last`` (the output's last
        size :math:`n`; the input's last dim has :math:`n//2 + 1` bins).
    saves_input, saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.fft.irfftn`` with ``s`` the input's sizes and ``last``. A real input
    is treated as a spectrum with zero imaginary parts (and gets a real gradient).
    """

    __slots__ = ()
    schema_v1 = _schema("fft_c2r", "custom")

    @staticmethod
    def dispatch(be, x, axes, norm, last):
        _check_float("irfft", x, True)
        return be.fft_c2r(x, axes, norm, last)

    def grad(self, F, g, x, out):
        p = self.params
        ax = p["axes"][-1]
        n, m = p["last"], self.in_meta[0][0][ax]
        w = _weights(self.be, n, m, g)
        w = F.reshape(w, (m,) + (1,) * (len(g.shape) - 1 - ax))
        return F.fft_r2c(g, p["axes"], _SWAP[p["norm"]]) * w


def fft_c2c(x, axes, norm, forward):
    return FftC2cBackward.apply(x, axes=tuple(axes), norm=norm, forward=forward)


def fft_r2c(x, axes, norm):
    return FftR2cBackward.apply(x, axes=tuple(axes), norm=norm)


def fft_c2r(x, axes, norm, last):
    return FftC2rBackward.apply(x, axes=tuple(axes), norm=norm, last=last)
