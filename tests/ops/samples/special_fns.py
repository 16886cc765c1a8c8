"""Registry-suite samples for the ops of lucid.special beyond the core's
(lucid/ops/special/: gaussian.py, bessel.py, entropy.py, gamma_zeta.py, polynomials.py)."""

import numpy as np
import torch

import lucid.special as S

from ._sample import Const, Sample, pos, rnd

ts = torch.special
_X = rnd(3, 4, low=-3, high=3)
_WIDE = np.array([-30.0, -7.5, -1.0, 0.0, 0.4, 2.0, 24.0, 31.0])  # both Bessel branches

SAMPLES = [
    Sample("erfcx", S.erfcx, (_X,), torch_fn=ts.erfcx),
    Sample(
        "erfcx",
        S.erfcx,
        (np.array([-5.0, -0.5, 0.7, 1.5, 3.0, 9.0]),),
        torch_fn=ts.erfcx,
        name="erfcx[pieces]",
    ),
    Sample("ndtr", S.ndtr, (_X,), torch_fn=ts.ndtr),
    Sample(
        "log_ndtr",
        S.log_ndtr,
        (np.array([-12.0, -3.0, -1.0, -0.5, 0.5, 2.0, 6.0]),),
        torch_fn=ts.log_ndtr,
    ),
    Sample("ndtri", S.ndtri, (rnd(3, 4, low=0.02, high=0.98),), torch_fn=ts.ndtri),
    Sample(
        "ndtri",
        S.ndtri,
        (np.array([1e-4, 0.01, 0.3, 0.5, 0.8, 0.999]),),
        torch_fn=ts.ndtri,
        name="ndtri[tails]",
        rtol=1e-2,
    ),
    Sample("i0", S.i0, (_WIDE,), torch_fn=ts.i0),
    Sample("i0e", S.i0e, (_WIDE + 0.25,), torch_fn=ts.i0e),  # not smooth at 0
    Sample("i1", S.i1, (_WIDE,), torch_fn=ts.i1),
    Sample("i1e", S.i1e, (_WIDE,), torch_fn=ts.i1e),
    Sample("i1", S.i1, (np.array(0.0),), torch_fn=ts.i1, name="i1[0-d zero]"),
    # torch's bessel_j0/j1/y0/y1 are accurate to ~1e-7 only and have no gradient: the
    # values are checked against mpmath in tests/test_special.py
    Sample("bessel_j0", S.bessel_j0, (_WIDE,)),
    Sample("bessel_j1", S.bessel_j1, (_WIDE,)),
    Sample("bessel_y0", S.bessel_y0, (np.abs(_WIDE) + 0.5,)),
    Sample("bessel_y1", S.bessel_y1, (np.abs(_WIDE) + 0.5,)),
    Sample(
        "modified_bessel_k0",
        S.modified_bessel_k0,
        (np.abs(_WIDE) + 0.5,),
        torch_fn=ts.modified_bessel_k0,
    ),
    Sample(
        "modified_bessel_k1",
        S.modified_bessel_k1,
        (np.abs(_WIDE) + 0.5,),
        torch_fn=ts.modified_bessel_k1,
    ),
    Sample(
        "scaled_modified_bessel_k0",
        S.scaled_modified_bessel_k0,
        (np.abs(_WIDE) + 0.5,),
        torch_fn=ts.scaled_modified_bessel_k0,
    ),
    Sample(
        "scaled_modified_bessel_k1",
        S.scaled_modified_bessel_k1,
        (np.abs(_WIDE) + 0.5,),
        torch_fn=ts.scaled_modified_bessel_k1,
    ),
    Sample(
        "orthogonal_polynomial",
        S.chebyshev_polynomial_t,
        (rnd(3, 4), 7),
        torch_fn=ts.chebyshev_polynomial_t,
        grad=False,
    ),
    Sample(
        "orthogonal_polynomial",
        S.legendre_polynomial_p,
        (rnd(3, 1), Const(np.array([0.0, 1.0, 4.0, 9.0]))),
        torch_fn=ts.legendre_polynomial_p,
        grad=False,
        name="legendre_p[n tensor]",
    ),
    Sample("airy_ai", S.airy_ai, (np.array([-30.0, -9.9, -1.0, 0.0, 3.0, 12.0]),), grad=False),
    Sample(
        "spherical_bessel_j0",
        S.spherical_bessel_j0,
        (np.array([-4.0, 0.0, 1e-8, 2.5]),),
        torch_fn=ts.spherical_bessel_j0,
        grad=False,
    ),
    Sample("entr", S.entr, (pos(3, 4),), torch_fn=ts.entr),
    Sample("xlog1py", S.xlog1py, (rnd(3, 4), pos(4) - 0.4), torch_fn=ts.xlog1py),
    Sample(
        "xlog1py",
        S.xlog1py,
        (rnd(2, 1), Const(np.array([0.5, 2.0]))),
        torch_fn=ts.xlog1py,
        name="xlog1py[const other]",
    ),
    Sample("zeta", S.zeta, (Const(np.array([2.5, 3.0, 4.5])), pos(2, 3) + 0.5), torch_fn=ts.zeta),
    Sample(
        "zeta",
        S.zeta,
        (Const(np.array(1.5)), np.array([0.1, 3.0, 40.0])),
        torch_fn=ts.zeta,
        name="zeta[q wide]",
    ),
    Sample("gammainc", S.gammainc, (Const(pos(3) + 0.5), pos(2, 3) * 2), torch_fn=ts.gammainc),
    Sample("gammaincc", S.gammaincc, (Const(pos(3) + 0.5), pos(2, 3) * 2), torch_fn=ts.gammaincc),
]
