"""The graph-mode forms (:mod:`lucid.ops.core.graph_ns`) of the ``lucid.linalg`` kernels that
gradient formulas call: each takes the backend kernel's arguments and runs the registered
op, so the gradient is differentiable again."""

from __future__ import annotations

from .solve import DetBackward, InvBackward, SolveBackward, SolveTriangularBackward
from .decompositions import SvdBackward
from .matrix_fns import MatrixExpBackward

__all__ = ["inv", "det", "solve", "solve_triangular", "matrix_exp", "svd"]


def inv(a):
    return InvBackward.apply(a)


def det(a):
    return DetBackward.apply(a)


def solve(a, b):
    return SolveBackward.apply(a, b)


def solve_triangular(a, b, upper, unitriangular):
    return SolveTriangularBackward.apply(a, b, upper=upper, unitriangular=unitriangular)


def matrix_exp(a):
    return MatrixExpBackward.apply(a)


def svd(a, full_matrices):
    return tuple(SvdBackward.apply(a, full_matrices=full_matrices))
