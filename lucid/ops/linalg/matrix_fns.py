"""Matrix functions and norms of ``lucid.linalg``: the matrix exponential (a registered
node), powers, vector and matrix norms, the condition number, chained and Householder
products, Vandermonde matrices, and the names ``lucid.linalg`` shares with ``lucid``.

Registered node: :class:`MatrixExpBackward` (holomorphic: complex data get
:math:`A^{\\mathsf H}` in its gradient through the base class); the rest compose
registered ops, complex inputs included (norms and condition numbers are real).
"""

from __future__ import annotations

import numbers

from ..._tensor import Tensor
from ...errors import ArgumentError, ArgumentTypeError, DimError, DTypeError, ShapeError, reports_as
from ..core._bind import tensor_method
from ..core.base import Op, norm_dim, to_tensor
from .decompositions import svdvals
from .products import cross as _cross, matmul
from .args import conj, matrix, mH, mT, schema
from .solve import inv
from ..reduction.moments import norm_input, vector_norm as _vector_norm
from ..core.registry import register
from ..shape.joins import cat

__all__ = []

_INF = float("inf")


@register
class MatrixExpBackward(Op):
    r"""Autograd node for :math:`e^{A}`. Saves the input: the gradient is the exponential
    of a block matrix built from it.

    Math
    ----
    The Fréchet derivative of :math:`e^{A}` in direction :math:`E` is the upper-right block
    of :math:`\exp\begin{pmatrix} A & E \\ 0 & A\end{pmatrix}`; its adjoint gives

    .. math:: \bar A = \left[\exp\begin{pmatrix} A^{\top} & \bar Y \\ 0 & A^{\top}
              \end{pmatrix}\right]_{12}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"linalg_matrix_exp"``, ``AmpPolicy.FORCE_FP32``, ``complex_grad="holomorphic"``.
    saves_input, saves_output : bool
        True (:math:`A`), False.

    Notes
    -----
    Backends: scaling and squaring over ``xp`` (a Taylor polynomial of degree 18 of
    :math:`A/2^s` with :math:`\lVert A/2^s\rVert_1 \le 1/2`, then :math:`s` squarings; the
    number of squarings is read on the host). The gradient calls ``F.matrix_exp`` on the
    :math:`2n \times 2n` block matrix, so it is differentiable again. Overflow gives inf.
    """

    __slots__ = ()
    schema_v1 = schema("linalg_matrix_exp", complex_grad="holomorphic")
    saves_input = True

    @staticmethod
    def dispatch(be, a):
        return be.matrix_exp(a)

    def grad(self, F, g, a, out):
        n = a.shape[-1]
        at = mT(a)
        if tuple(g.shape) != tuple(at.shape):
            at = F.broadcast_to(at, tuple(g.shape))
        top = F.concatenate([at, g], -1)
        bottom = F.concatenate([F.zeros_like(at), at], -1)
        return F.matrix_exp(F.concatenate([top, bottom], -2))[..., :n, n:]


@tensor_method("matrix_exp")
def matrix_exp(A):
    """:math:`e^{A} = \\sum_k A^k/k!` of square ``A`` (batched)."""
    return MatrixExpBackward.apply(matrix("matrix_exp", A, square=True))


def _eye_like(A):
    n = A.shape[-1]
    return Tensor._wrap(A._device._backend.eye(n, n, A._dtype.np), A._dtype, A._device)


@tensor_method("matrix_power")
def matrix_power(A, n):
    """:math:`A^n` for an integer ``n`` (negative: powers of :math:`A^{-1}`; 0: the
    identity), by repeated squaring."""
    A = matrix("matrix_power", A, square=True)
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise ArgumentError(f"linalg.matrix_power: n must be an int, got {type(n).__name__}")
    if n == 0:  # the identity, in A's graph with a zero gradient (as PyTorch)
        return A.clone().zero_() + _eye_like(A)
    base = inv(A) if n < 0 else A
    n = abs(n)
    out = None
    while n:
        if n & 1:
            out = base if out is None else out @ base
        n >>= 1
        if n:
            base = base @ base
    return out


@reports_as("linalg.vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """:math:`(\\sum |x|^{ord})^{1/ord}` over ``dim`` (all dims when None or empty); ``ord``
    inf, -inf and 0 (the count of non-zeros) as PyTorch."""
    return _vector_norm(x, ord, dim, keepdim, dtype, "linalg.vector_norm")


@reports_as("linalg.matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two ``dim``: ``'fro'``, ``'nuc'`` (sum of singular
    values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column abs
    sum), inf / -inf (max / min row abs sum). PyTorch's checks, in its order: the types of
    ``dim`` and ``ord`` (its argument parser), the order, then ``A`` (2 or more dims,
    floating or complex; no half types where singular values are needed), then ``dim``
    (two distinct dims). An empty matrix has norm 0 for positive orders; negative ones
    (a minimum over nothing) raise."""
    if not isinstance(dim, (tuple, list)) or not all(isinstance(d, numbers.Integral) for d in dim):
        raise ArgumentTypeError(
            f"linalg.matrix_norm(): argument 'dim' must be a tuple of "
            f"ints, not {type(dim).__name__}"
        )
    if isinstance(ord, str):
        svd = ord == "nuc"
        ok = ord in ("fro", "nuc")
    elif isinstance(ord, numbers.Real):
        svd = abs(ord) == 2
        ok = abs(ord) in (1, 2, _INF)
    else:
        raise ArgumentTypeError(
            f"linalg.matrix_norm(): argument 'ord' must be a number or "
            f"a str, not {type(ord).__name__}"
        )
    if not ok:
        raise ArgumentError(
            f"linalg.matrix_norm: order {ord!r} not supported; expected "
            "'fro', 'nuc', inf, -inf, 1, -1, 2 or -2"
        )
    A = to_tensor(A)
    if A._data.ndim < 2:
        raise ShapeError(
            f"linalg.matrix_norm: A must have at least 2 dimensions, got shape "
            f"{tuple(A._data.shape)}"
        )
    if not (A._dtype.is_floating_point or A._dtype.is_complex) or (
        svd and A._dtype.itemsize < 4 and not A._dtype.is_complex
    ):
        raise DTypeError(
            f"linalg.matrix_norm: expected A to be a "
            f"{'float32, float64' if svd else 'floating'} or complex tensor for "
            f"ord={ord!r}, got {A._dtype.name}"
        )
    if len(dim) != 2:
        raise ArgumentError(f"linalg.matrix_norm: dim must be a 2-tuple, got {tuple(dim)}")
    d0, d1 = (norm_dim(d, A.ndim, "linalg.matrix_norm") for d in dim)
    if d0 == d1:
        raise ArgumentError(f"linalg.matrix_norm: dims must differ, got {tuple(dim)}")
    if ord == "fro":
        return _vector_norm(A, 2, (d0, d1), keepdim, dtype, "linalg.matrix_norm")
    if svd:
        A = norm_input(A, dtype, "linalg.matrix_norm")
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        if not s._data.shape[-1] and ord == -2:
            raise DimError(
                "linalg.matrix_norm: cannot compute the -2 norm of an empty "
                "matrix (the smallest of no singular values)"
            )
        # the largest of no singular values is 0, as their sum
        r = (
            s.sum(-1)
            if ord == "nuc" or not s._data.shape[-1]
            else s.amax(-1)
            if ord == 2
            else s.amin(-1)
        )
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return r
    inner, outer = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = _vector_norm(A, 1, (inner,), True, dtype, "linalg.matrix_norm")
    if ord < 0 and not sums._data.shape[outer]:
        raise DimError(
            f"linalg.matrix_norm: cannot compute the {ord} norm: the minimum over "
            f"the empty dim {outer}"
        )
    r = (
        sums.sum(outer, keepdim=True)
        if not sums._data.shape[outer]
        else sums.amax(outer, keepdim=True)
        if ord > 0
        else sums.amin(outer, keepdim=True)
    )
    return r if keepdim else r.squeeze((d0, d1))


@reports_as("linalg.norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (``dim`` an int or 1-tuple, ``A`` 1-D, or ``ord=None`` with
    ``dim=None``: the 2-norm of every element) or a matrix norm (``dim`` a pair, or ``A``
    2-D with ``ord`` given), as PyTorch chooses; a string ``ord`` is a matrix norm's."""
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        dim = (dim,)
    if dim is not None:
        if not isinstance(dim, (tuple, list)):
            raise ArgumentTypeError(
                f"linalg.norm(): argument 'dim' must be an int or a tuple "
                f"of ints, not {type(dim).__name__}"
            )
        if len(dim) not in (1, 2):
            raise ArgumentError(
                f"linalg.norm: if dim is given, it must have 1 or 2 entries, got {tuple(dim)}"
            )
    elif ord is not None and to_tensor(A)._data.ndim not in (1, 2):
        raise ShapeError(
            f"linalg.norm: with ord={ord!r} and dim=None, A must be 1-D or 2-D, "
            f"got {to_tensor(A)._data.ndim}-D"
        )
    if (
        isinstance(ord, str)
        or ord is not None
        and (len(dim) == 2 if dim is not None else to_tensor(A)._data.ndim == 2)
    ):
        return matrix_norm(A, ord, (0, 1) if dim is None else tuple(dim), keepdim, dtype=dtype)
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype, "linalg.norm")


def cond(A, p=None):
    """The condition number :math:`\\lVert A\\rVert_p \\lVert A^{-1}\\rVert_p` (``p`` None or
    2: :math:`s_{\\max}/s_{\\min}`; -2: the reciprocal)."""
    A = matrix("cond", A)
    if p in (None, 2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1]
        return r if p != -2 else 1 / r
    A = matrix("cond", A, square=True)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def multi_dot(tensors):
    """The product of a chain of matrices (the first may be a 1-D row, the last a 1-D
    column), multiplied in the order with the fewest scalar products."""
    ts = list(tensors)
    if len(ts) < 2:
        raise ArgumentError(f"linalg.multi_dot: expected at least 2 tensors, got {len(ts)}")
    first, last = ts[0].ndim == 1, ts[-1].ndim == 1
    if first:
        ts[0] = ts[0].unsqueeze(0)
    if last:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise ShapeError(f"linalg.multi_dot: tensor {i} must be 2-D, got {t.ndim}-D")
    dims = [t.shape[0] for t in ts] + [ts[-1].shape[1]]
    out = _chain(ts, _order(dims), 0, len(ts) - 1)
    if first:
        out = out.squeeze(0)
    if last:
        out = out.squeeze(-1)
    return out


def _order(dims):
    """The split table of the matrix-chain order with the fewest scalar products."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                for k in range(i, j)
            )
    return split


def _chain(ts, split, i, j):
    if i == j:
        return ts[i]
    k = split[i][j]
    return matmul(_chain(ts, split, i, k), _chain(ts, split, k + 1, j))


def householder_product(A, tau):
    """The first ``n`` columns of :math:`H_1 \\cdots H_k`, :math:`H_i = I - \\tau_i v_i
    v_i^{\\mathsf H}`, with :math:`v_i` the ``i``-th column of ``A`` below the diagonal and 1 on
    it (LAPACK's orgqr)."""
    A = matrix("householder_product", A)
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if n > m or k > n:
        raise ShapeError(
            f"linalg.householder_product: expected m >= n >= k, got A of shape "
            f"{tuple(A.shape)} and tau of shape {tuple(tau.shape)}"
        )
    be = A._device._backend
    eye = Tensor._wrap(be.eye(m, m, A._dtype.np), A._dtype, A._device)
    v = A.tril(-1) + eye[:, :n]
    q = eye.expand(tuple(A.shape[:-2]) + (m, m))
    for i in range(k):
        vi = v[..., :, i : i + 1]
        q = q - (q @ vi) * tau[..., i, None, None] @ mH(vi)
    return q[..., :, :n]


def vander(x, N=None):
    """The Vandermonde matrix of ``x`` (..., n): columns :math:`x^0, x^1, \\ldots,
    x^{N-1}` (``N`` defaults to n)."""
    n = x.shape[-1] if N is None else N
    if x.ndim < 1 or n < 1:
        raise ShapeError(
            f"linalg.vander: expected x with at least 1 dim and N >= 1, got "
            f"shape {tuple(x.shape)} and N={N}"
        )
    ones = (x * 0 + 1).unsqueeze(-1)
    if n == 1:
        return ones
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    return cat([ones, powers], -1)


def vecdot(x, y, *, dim=-1):
    """:math:`\\sum_i \\bar x_i y_i` over ``dim`` (``x`` conjugated, as PyTorch), batch
    dims broadcast."""
    return (conj(x) * y).sum(dim)


def cross(input, other, *, dim=-1):
    """The cross product along ``dim`` (size 3), batch dims broadcast."""
    return _cross(input, other, dim=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal ``offset`` of the matrices in dims ``dim1``, ``dim2`` (a view)."""
    return A.diagonal(offset, dim1, dim2)
