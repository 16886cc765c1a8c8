r"""``lucid.special``: the special functions of ``torch.special``.

Functions the core already has are named here under torch.special's names (``gammaln`` is
:func:`lucid.lgamma`, ``psi`` is :func:`lucid.digamma`, ``expit`` is :func:`lucid.sigmoid`,
``erf``, ``logit``, ``softmax``, ``logsumexp``, ...); the others are registered ops of
:mod:`lucid.ops.special.library` (``erfcx``, ``ndtr``, ``ndtri``, ``log_ndtr``, the Bessel
functions of both kinds and the modified ones, ``entr``, ``xlog1py``, ``zeta``,
``gammainc``, ``gammaincc``, the orthogonal polynomials) and ``multigammaln``, composed
of ``lgamma``. Every kernel is Lucid's own (no SciPy), float64 inside, element-wise over
the backend's array module, so the CUDA backend runs them too.

``modified_bessel_i0`` and ``modified_bessel_i1`` are :func:`i0` and :func:`i1` (PyTorch
computes them by separate kernels without a derivative; here they are differentiable).
"""

from ..ops.binary.binary import xlogy
from ..ops.reduction.reduction import logsumexp
from ..ops.special.functions import digamma, lgamma, log_softmax, polygamma, softmax
from ..ops.special.library import (airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1,
                               chebyshev_polynomial_t, chebyshev_polynomial_u,
                               chebyshev_polynomial_v, chebyshev_polynomial_w, entr, erfcx,
                               gammainc, gammaincc, hermite_polynomial_h,
                               hermite_polynomial_he, i0, i0e, i1, i1e, laguerre_polynomial_l,
                               legendre_polynomial_p, log_ndtr, modified_bessel_k0,
                               modified_bessel_k1, multigammaln, ndtr, ndtri,
                               scaled_modified_bessel_k0, scaled_modified_bessel_k1,
                               shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
                               shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w,
                               spherical_bessel_j0, xlog1py, zeta)
from ..ops.elementwise.unary import erf, erfc, erfinv, exp2, expm1, log1p, logit, round, sigmoid, sinc

gammaln = lgamma
psi = digamma
expit = sigmoid
modified_bessel_i0 = i0
modified_bessel_i1 = i1

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
