r"""``lucid.special``: the special functions of ``torch.special``.

Functions the core already has are named here under torch.special's names (``gammaln`` is
:func:`lucid.lgamma`, ``psi`` is :func:`lucid.digamma`, ``expit`` is :func:`lucid.sigmoid`,
``erf``, ``logit``, ``softmax``, ``logsumexp``, ...); the others are registered ops of
:mod:`lucid.ops.special.gaussian` (``erfcx``, ``ndtr``, ``ndtri``, ``log_ndtr``),
:mod:`~lucid.ops.special.bessel` (the Bessel functions of both kinds and the modified
ones), :mod:`~lucid.ops.special.entropy` (``entr``, ``xlog1py``),
:mod:`~lucid.ops.special.gamma_zeta` (``zeta``, ``gammainc``, ``gammaincc``) and
:mod:`~lucid.ops.special.polynomials` (the orthogonal polynomials), and ``multigammaln``,
composed of ``lgamma``. Every kernel is Lucid's own (no SciPy), float64 inside,
element-wise over the backend's array module, so the CUDA backend runs them too.

``modified_bessel_i0`` and ``modified_bessel_i1`` are :func:`i0` and :func:`i1` (PyTorch
computes them by separate kernels without a derivative; here they are differentiable).
"""

from ..ops.binary.functions import xlogy
from ..ops.reduction.sums import logsumexp
from ..ops.special.functions import digamma, lgamma, log_softmax, polygamma, softmax
from ..ops.special.gaussian import erfcx, log_ndtr, ndtr, ndtri
from ..ops.special.bessel import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    i0,
    i0e,
    i1,
    i1e,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from ..ops.special.entropy import entr, xlog1py
from ..ops.special.gamma_zeta import gammainc, gammaincc, multigammaln, zeta
from ..ops.special.polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from ..ops.elementwise.erf import erf, erfc, erfinv
from ..ops.elementwise.exp_log import exp2, expm1, log1p, logit, sigmoid
from ..ops.elementwise.rounding import round
from ..ops.elementwise.trig import sinc

gammaln = lgamma
psi = digamma
expit = sigmoid
modified_bessel_i0 = i0
modified_bessel_i1 = i1

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]
