"""``lucid.linalg``: linear algebra on stacks of real or complex matrices, as
``torch.linalg``.

Factorisations (``cholesky``, ``qr``, ``svd``, ``eigh``, ``eig``, ``lu_factor``,
``ldl_factor``), inverses and
solves (``inv``, ``det``, ``slogdet``, ``solve``, ``solve_triangular``, ``lu_solve``,
``lstsq``, ``pinv``), matrix functions and norms (``matrix_exp``, ``matrix_power``,
``matrix_norm``, ``vector_norm``, ``norm``, ``cond``, ``matrix_rank``) and products
(``multi_dot``, ``householder_product``, ``vecdot``, ``cross``, ``matmul``). Every function
takes leading batch dims and is differentiable where PyTorch's is; the nodes are
registered ops (:mod:`lucid.ops.linalg.decompositions`, :mod:`lucid.ops.linalg.solve`,
:mod:`lucid.ops.linalg.matrix_fns`, :mod:`lucid.ops.linalg.eig`, :mod:`lucid.ops.linalg.ldl`).

Every function takes float32, float64, complex64 and complex128 inputs, with PyTorch's
complex conventions: conjugate transposes where the real function has transposes
(``cholesky``'s :math:`A = LL^{\\mathsf H}`, ``eigh``'s Hermitian input, ``svd``'s
:math:`V^{\\mathsf H}`, ``householder_product``, ``lu_solve(adjoint=True)``), ``vecdot``
conjugating its first argument, real results where PyTorch's are real (singular values,
``eigh``'s eigenvalues, ``slogdet``'s ``logabsdet``, norms, ``cond``, ``matrix_rank``), and
the gradients of PyTorch's convention (:mod:`lucid.ops.elementwise.complex`), including its
refusal of a loss that depends on the phases of complex singular or eigen vectors. ``eig`` and
``eigvals`` return complex results for real input too.
"""

from ..ops.linalg.decompositions import (
    cholesky,
    cholesky_ex,
    eigh,
    eigvalsh,
    lu,
    lu_factor,
    lu_factor_ex,
    qr,
    svd,
    svdvals,
)
from ..ops.linalg.eig import eig, eigvals
from ..ops.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ..ops.linalg.products import matmul
from ..ops.linalg.solve import (
    det,
    inv,
    inv_ex,
    lstsq,
    lu_solve,
    matrix_rank,
    pinv,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    tensorinv,
    tensorsolve,
)
from ..ops.linalg.matrix_fns import (
    cond,
    cross,
    diagonal,
    householder_product,
    matrix_exp,
    matrix_norm,
    matrix_power,
    multi_dot,
    norm,
    vander,
    vecdot,
    vector_norm,
)

__all__ = [
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]
