"""Linalg kernels of the Backend interface."""

from abc import ABC, abstractmethod


class LinalgKernels(ABC):
    """Linalg primitive kernels (arrays of one backend in and out)."""

    @abstractmethod
    def matmul(self, a, b):
        """Matrix product with NumPy's ``matmul`` broadcasting rules."""

    @abstractmethod
    def linear(self, x, w, b):
        """:math:`y = x W^\\top + b` over the last axis of ``x`` (..., in) with ``w``
        (out, in) and ``b`` (out,) or None: one GEMM of ``x`` viewed as (N, in) by the
        transposed (not copied) ``w``, the bias added in place; result (..., out)."""

    @abstractmethod
    def linear_act(self, x, w, b, activation, approximate):
        r"""A linear layer and its activation as one kernel call: :math:`z = x W^\top + b`
        as :meth:`linear`, then :math:`y = \mathrm{ReLU}(z)` (``activation="relu"``) or
        :math:`y = \mathrm{GELU}(z)` (``"gelu"``, exact or ``approximate="tanh"``, as
        :meth:`gelu`). Returns ``y`` alone for ReLU (its backward reads ``y``), ``(y, z)``
        for GELU (its backward reads ``z``)."""

    @abstractmethod
    def linear_weight_grad(self, g, x, npdtype=None):
        r"""A linear layer's weight and bias gradients from the 2-D output gradient ``g``
        (N, out) and input ``x`` (N, in): :math:`(g^\top x, \sum_n g_{n\cdot})`, in
        ``g``'s dtype or in ``npdtype`` (float32 for half ``g`` and ``x``: the weights of
        a linear layer under autocast; the sums are then not rounded to the half type)."""

    @abstractmethod
    def sum_rows(self, a):
        r"""The column sums of a 2-D array, :math:`\sum_n a_{n\cdot}` (a linear layer's
        bias gradient), in its dtype."""

    @abstractmethod
    def qr(self, a):
        """Reduced QR factorisation of a 2-D float array :math:`a = QR` (M, N) with
        :math:`K = \\min(M, N)`: ``(q, r)``, ``q`` (M, K) with orthonormal columns, ``r``
        (K, N) upper triangular (LAPACK's signs: the diagonal of ``r`` may be negative)."""

    @abstractmethod
    def einsum(self, equation, *arrays):
        """Einstein summation of ``arrays`` over an explicit equation of letters only
        (``"ab,bc->ac"``: no ellipsis, every operand's dims named, sizes equal per letter)."""

    @abstractmethod
    def cross(self, a, b, axis):
        """Cross product :math:`c = a \\times b` of equal-shape ``a``, ``b`` along ``axis``
        (size 3)."""

    @abstractmethod
    def diag_embed(self, a, offset, dim1, dim2):
        """Zeros with the last axis of ``a`` written on diagonal ``offset`` of the plane
        (``dim1``, ``dim2``) of the result, which has one more dim than ``a``."""

    @abstractmethod
    def cdist(self, x1, x2, p, use_mm):
        """:math:`d_{\\ldots ij} = \\lVert x1_{\\ldots i} - x2_{\\ldots j} \\rVert_p` between
        the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M), batch dims broadcast.

        ``p = 0`` counts differing coordinates, ``p = inf`` takes the largest. ``use_mm``
        (p = 2 only): :math:`\\sqrt{\\max(|x1|^2 - 2\\,x1\\,x2^\\top + |x2|^2, 10^{-30})}`,
        one GEMM instead of the (..., P, R, M) difference tensor.
        """

    @abstractmethod
    def cdist_backward(self, g, x1, x2, d, p):
        """Gradients ``(g1, g2)`` of :meth:`cdist` (batch shape broadcast): with
        :math:`\\delta = x1_i - x2_j`, :math:`w = g\\,\\mathrm{sign}(\\delta)|\\delta|^{p-1}
        / d^{p-1}` (0 where :math:`d = 0`, or :math:`\\delta = 0` for :math:`p < 1`),
        :math:`g1_i = \\sum_j w`, :math:`g2_j = -\\sum_i w`; ``p = inf`` keeps only the
        coordinates where :math:`|\\delta| = d`, ``p = 0`` gives zeros."""
