"""Registry-suite samples of ``linalg.eig``/``eigvals``: matrices with well-separated
eigenvalues (the eigenvector gradient divides by their differences) and phase-invariant
functions of the eigenvectors (each is defined up to a complex phase)."""

import numpy as np
import torch

import lucid

from ._sample import Sample, crnd, rnd

_SPREAD = np.diag([1.0, 2.5, 4.0, -3.0])


def _eig(lib):
    def f(a):
        w, v = lib.linalg.eig(a)
        return w, v.abs() ** 2  # |V_ij|^2 does not depend on the phases

    return f


def _s(tag, fn_l, fn_t, *args, **kw):
    return Sample("linalg_eig", fn_l, args, torch_fn=fn_t, name=f"linalg_eig[{tag}]", **kw)


SAMPLES = [
    _s("real", _eig(lucid), _eig(torch), rnd(4, 4) * 0.3 + _SPREAD),
    _s("real batch", _eig(lucid), _eig(torch), rnd(2, 4, 4, seed=1) * 0.3 + _SPREAD),
    _s("complex", _eig(lucid), _eig(torch), crnd(4, 4) * 0.3 + _SPREAD),
    _s("eigvals", lucid.linalg.eigvals, torch.linalg.eigvals, rnd(2, 3, 3, seed=2)),
    _s("eigvals complex", lucid.linalg.eigvals, torch.linalg.eigvals, crnd(3, 3, seed=3)),
    # a real matrix with a complex-conjugate pair of eigenvalues
    _s(
        "rotation",
        _eig(lucid),
        _eig(torch),
        np.array([[0.0, -2.0, 0.1], [2.0, 0.0, 0.3], [0.2, 0.1, 1.0]]),
    ),
]
