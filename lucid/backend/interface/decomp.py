"""Matrix decomposition and matrix-function kernels of the Backend interface (lucid.linalg).

Every kernel takes float32/float64 or complex64/complex128 arrays with the matrix in the
last two axes and any leading batch axes, and returns arrays batched the same way. For
complex input, transposes below read as conjugate transposes (:math:`A = LL^{\\mathsf H}`,
:math:`A = V\\,\\mathrm{diag}(w)\\,V^{\\mathsf H}`, ...); singular values, eigh's
eigenvalues and slogdet's ``logabsdet`` are real (of the parts' precision), slogdet's sign
complex.
"""

from abc import ABC, abstractmethod


class DecompKernels(ABC):
    """Factorisations, solves and matrix functions of stacks of matrices."""

    @abstractmethod
    def inv(self, a):
        """:math:`A^{-1}` of square ``a`` (..., n, n); raises
        :class:`~lucid.errors.ArgumentError` naming the first zero pivot when a matrix is
        singular."""

    @abstractmethod
    def det(self, a):
        """:math:`\\det A` of square ``a`` (..., n, n) (through an LU factorisation)."""

    @abstractmethod
    def slogdet(self, a):
        """``(sign, logabsdet)`` with :math:`\\det A = \\mathrm{sign}\\,e^{\\mathrm{logabsdet}}`
        (sign 0 and logabsdet :math:`-\\infty` for a singular matrix)."""

    @abstractmethod
    def solve(self, a, b):
        """:math:`X = A^{-1}B` for square ``a`` (..., n, n) and ``b`` (..., n, k), batch axes
        broadcast; raises :class:`~lucid.errors.ArgumentError` for a singular ``a``."""

    @abstractmethod
    def solve_triangular(self, a, b, upper, unitriangular):
        """:math:`X = T^{-1}B` where :math:`T` is the upper (``upper``) or lower triangle of
        ``a`` (..., n, n), with ones on the diagonal when ``unitriangular`` (the other
        triangle of ``a`` is never read); ``b`` (..., n, k), batch axes broadcast."""

    @abstractmethod
    def cholesky(self, a):
        """``(L, info)``: the lower Cholesky factor :math:`A = LL^{\\top}` of the symmetric
        ``a`` (..., n, n) (only its lower triangle is read) and an int32 ``info`` (...)
        that is 0, or the order of the first leading minor that is not positive definite
        (then that ``L`` is NaN)."""

    @abstractmethod
    def qr_decompose(self, a, complete):
        """``(Q, R)`` with :math:`A = QR` for ``a`` (..., m, n): reduced (Q (m, k), R (k, n),
        :math:`k = \\min(m, n)`) or ``complete`` (Q (m, m), R (m, n)); LAPACK's signs."""

    @abstractmethod
    def svd(self, a, full_matrices):
        """``(U, S, Vh)`` with :math:`A = U\\,\\mathrm{diag}(S)\\,V^{\\top}`, ``S``
        descending; U (m, k) and Vh (k, n), or square with ``full_matrices``."""

    @abstractmethod
    def svdvals(self, a):
        """The singular values of ``a`` (..., m, n), descending (..., min(m, n))."""

    @abstractmethod
    def eigh(self, a):
        """``(w, V)`` with :math:`A = V\\,\\mathrm{diag}(w)\\,V^{\\top}` for the symmetric
        ``a`` (only its lower triangle is read), ``w`` ascending."""

    @abstractmethod
    def eigvalsh(self, a):
        """The eigenvalues of the symmetric ``a`` (lower triangle read), ascending."""

    @abstractmethod
    def ldl_factor(self, a, hermitian):
        r"""``(LD, pivots, info)``: Bunch-Kaufman :math:`PAP^\top = LDL^\top` (``L D
        L^H`` where ``hermitian`` and ``a`` is complex) of the lower triangle of square
        ``a``, in LAPACK's ``sytrf`` format (see :mod:`lucid.backend.array.ldl`); int32
        1-based ``pivots``; ``info`` the first zero pivot (1-based) or 0."""

    @abstractmethod
    def ldl_solve(self, ld, pivots, b, hermitian):
        """:math:`A^{-1}B` from :meth:`ldl_factor`'s ``ld`` and ``pivots``, batch axes
        broadcast (``b``: (..., n, k))."""

    @abstractmethod
    def eig(self, a):
        r"""``(w, V)`` with :math:`A = V\,\mathrm{diag}(w)\,V^{-1}` for square ``a``, both
        complex (complex64 for float32/complex64 input, complex128 otherwise), each column
        of ``V`` of unit norm."""

    @abstractmethod
    def lu_factor(self, a):
        """``(LU, pivots, info)``: partial-pivoting LU of ``a`` (..., m, n) as LAPACK's
        getrf stores it (the pivot the first largest :math:`|\\mathrm{Re}| + |\\mathrm{Im}|`
        of complex data, as izamax): :math:`PA' = LU` with unit-lower ``L`` below the diagonal of
        ``LU`` and ``U`` on and above it; ``pivots`` int32 (..., k), 1-based (row ``i`` was
        swapped with row ``pivots[i]``); ``info`` int32 (...), 0 or the 1-based index of
        the first zero pivot :math:`U_{ii}`."""

    @abstractmethod
    def lu_permutation(self, pivots, m, npdtype):
        """The permutation matrix :math:`P` (..., m, m) of ``dtype`` with :math:`A = PLU`
        for the getrf ``pivots`` (..., k)."""

    @abstractmethod
    def matrix_exp(self, a):
        """:math:`e^{A} = \\sum_k A^k / k!` of square ``a`` (..., n, n)."""
