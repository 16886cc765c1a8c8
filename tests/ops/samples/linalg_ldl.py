"""Registry-suite samples of ``linalg.ldl_factor``/``ldl_solve`` (not differentiable, as
in PyTorch: forward parity only): symmetric, complex symmetric and Hermitian matrices, with
small diagonals so that 2 x 2 pivots and interchanges occur."""

import numpy as np
import torch

import lucid

from ._sample import Sample, crnd, rnd


def _sym(a, herm=False):
    a = a + (np.conj(np.swapaxes(a, -1, -2)) if herm else np.swapaxes(a, -1, -2))
    return a - 0.95 * np.einsum("...ii->...i", a)[..., None] * np.eye(a.shape[-1])


def _factor(lib, herm=False):
    return lambda a: tuple(lib.linalg.ldl_factor(a, hermitian=herm))


def _solve(lib, herm=False):
    def f(a, b):
        ld, piv = lib.linalg.ldl_factor(a, hermitian=herm)
        return lib.linalg.ldl_solve(ld, piv, b, hermitian=herm)

    return f


def _s(op, tag, fl, ft, *args):
    return Sample(op, fl, args, torch_fn=ft, grad=False, complex=False, name=f"{op}[{tag}]")


SAMPLES = [
    _s("linalg_ldl_factor", "real batch", _factor(lucid), _factor(torch), _sym(rnd(3, 5, 5))),
    _s("linalg_ldl_factor", "complex symmetric", _factor(lucid), _factor(torch), _sym(crnd(4, 4))),
    _s(
        "linalg_ldl_factor",
        "hermitian",
        _factor(lucid, True),
        _factor(torch, True),
        _sym(crnd(2, 4, 4, seed=1), herm=True),
    ),
    _s(
        "linalg_ldl_solve",
        "real",
        _solve(lucid),
        _solve(torch),
        _sym(rnd(2, 5, 5, seed=2)),
        rnd(2, 5, 3, seed=3),
    ),
    _s(
        "linalg_ldl_solve",
        "hermitian",
        _solve(lucid, True),
        _solve(torch, True),
        _sym(crnd(4, 4, seed=4), herm=True),
        crnd(4, 2, seed=5),
    ),
]
