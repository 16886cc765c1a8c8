"""Core linear algebra: matmul and its restricted forms (mm, bmm, mv, dot), tensordot,
outer, kron, cross, diag/diag_embed and cdist (einsum is in :mod:`.einsum`, the fused
``add*`` products in :mod:`.addmm`).

Registered nodes: :class:`MatmulBackward` (every GEMM-shaped product routes here, so they
all run at BLAS speed without copies), :class:`CrossBackward`, :class:`DiagEmbedBackward`,
:class:`CdistBackward`. ``tensordot``, ``outer`` and ``kron`` are compositions of
registered ops.

Complex: ``matmul`` (and mm, bmm, mv, dot), ``cross`` and ``diag_embed`` are
holomorphic; ``vdot`` conjugates its first argument; ``cdist`` is real only.
"""

from __future__ import annotations

import math
import numbers

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...errors import ArgumentError, DeviceMismatchError, DimError, DTypeError, ShapeError
from ..core._bind import install, tensor_method
from ..core.base import Op, UnaryOp, broadcast_shapes, norm_dim, to_tensor
from ..binary.arith import MulBackward
from ..elementwise.complex import conj as _conj
from ..core.casts import clone as _clone
from ..core.registry import register
from ..core.schema import AmpPolicy, OpSchema
from ..shape.views import diagonal as _diagonal

__all__ = [
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "vdot",
    "outer",
    "ger",
    "tensordot",
    "kron",
    "cross",
    "diag",
    "diag_embed",
    "cdist",
]


@register
class MatmulBackward(Op):
    r"""Autograd node for :math:`Y = A B` with NumPy's batching and 1-d promotion rules.

    Saves each input only if the other needs a gradient: each gradient is the incoming
    gradient times the other's transpose (so ``x @ w`` with a constant ``x`` keeps only
    ``x``, as in PyTorch).

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial A} = G B^{\top}, \qquad
              \frac{\partial \mathcal{L}}{\partial B} = A^{\top} G

    with 1-d operands treated as a row (left) or column (right) vector and batch dims summed
    back to each operand's shape.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"matmul"``, ``AmpPolicy.PROMOTE`` (runs in the autocast dtype).
    saves_input : tuple
        ``B`` if ``A`` needs a gradient, ``A`` if ``B`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.matmul`` (BLAS GEMM on NumPy, cuBLAS on CuPy). Integer matmul is exact
    with wrap-around; half types compute in float32 on the CPU. Also the node of ``mm``,
    ``bmm``, ``mv``, ``dot``, ``vdot`` and ``tensordot``. A contracted dim of size 0 gives
    zeros.
    """

    __slots__ = ()
    schema_v1 = OpSchema("matmul", 1, AmpPolicy.PROMOTE, input_arity=2, complex_grad="holomorphic")
    saves_input = ((1,), (0,))  # the gradient of A needs B, that of B needs A

    @staticmethod
    def dispatch(be, a, b):
        return be.matmul(a, b)

    def grad(self, F, g, a, b, out):
        (sa, _), (sb, _) = self.in_meta
        if len(sa) == 1 and len(sb) == 1:
            return (None if b is None else g * b), (None if a is None else g * a)
        if len(sa) == 2 and len(sb) == 1 and b is None:  # d(A x)/dx = g A: one product
            return None, F.matmul(g, a)
        if len(sa) == 1 and len(sb) == 2 and a is None:  # d(x B)/dx = B g
            return F.matmul(b, g), None
        sa2 = (1,) + sa if len(sa) == 1 else sa  # 1-d operands as a row / a column
        sb2 = sb + (1,) if len(sb) == 1 else sb
        gs = tuple(g.shape)
        if len(sa) == 1:
            gs = gs[:-1] + (1,) + gs[-1:]
        if len(sb) == 1:
            gs = gs + (1,)
        g2 = F.reshape(g, gs) if gs != tuple(g.shape) else g
        ga = gb = None
        if b is not None:  # saved only if A needs a gradient
            b2 = F.reshape(b, sb2) if sb2 != sb else b
            ga = _fit(F, F.matmul(g2, F.swapaxes(b2, -1, -2)), sa2, sa)
        if a is not None:
            a2 = F.reshape(a, sa2) if sa2 != sa else a
            gb = _fit(F, F.matmul(F.swapaxes(a2, -1, -2), g2), sb2, sb)
        return ga, gb


def _fit(F, g, shape2, shape):
    """Gradient ``g`` summed over broadcast batch dims to ``shape2``, then viewed as the
    operand's own ``shape`` (undoing the 1-d promotion)."""
    if tuple(g.shape) != shape2:
        g = F.sum_to(g, shape2)
    return g if shape2 == shape else F.reshape(g, shape)


# -- argument checks shared by the wrappers ---------------------------------------------


def _shape(t):
    return tuple(t._data.shape)


def _pair(op, a, b):
    """``a``, ``b`` as Tensors on one device with one (non-bool) dtype, or a Lucid error."""
    if a.__class__ is not Tensor:
        a = to_tensor(a)
    if b.__class__ is not Tensor:
        b = to_tensor(b, a)
    _same_device(op, a, b)
    if a._dtype is not b._dtype and not _autocast_mix(a, b):
        raise DTypeError(
            f"{op}: expected all operands to have the same dtype, got "
            f"{a._dtype.name} and {b._dtype.name}"
        )
    if a._dtype is _dt.bool:
        raise DTypeError(f"{op}: not implemented for bool tensors")
    return a, b


def _same_device(op, a, b):
    """``b``, if on ``a``'s device; else a DeviceMismatchError."""
    if a._device is not b._device:
        raise DeviceMismatchError(
            f"{op}: expected all tensors to be on the same device, "
            f"but found tensors on {a._device} and {b._device}"
        )
    return b


def _operands(op, *xs):
    """Every operand of an n-ary op checked against the first, as by :func:`_pair`."""
    first = to_tensor(xs[0])
    return (
        (first,) + tuple(_pair(op, first, x)[1] for x in xs[1:])
        if len(xs) > 1
        else _pair(op, first, first)[:1]
    )


def _autocast_mix(a, b):
    """Under autocast of their device type, floating operands of different dtypes are fine:
    the op casts them."""
    on = STATE.autocast
    return (
        on is not None
        and a._device.type in on
        and a._dtype.is_floating_point
        and b._dtype.is_floating_point
    )


def _need_ndim(op, t, ndims, what):
    nd = t._data.ndim
    if nd not in ndims:
        want = " or ".join(f"{n}-D" for n in ndims)
        raise ShapeError(
            f"{op}: expected {what} to be a {want} tensor, got a {nd}-D tensor of shape {_shape(t)}"
        )


def _check_inner(op, a, b):
    """The last dim of ``a`` must equal the contracted dim of ``b`` (its first for 1-d)."""
    k1 = a._data.shape[-1]
    k2 = b._data.shape[-2] if b._data.ndim > 1 else b._data.shape[0]
    if k1 != k2:
        raise ShapeError(
            f"{op}: shapes {_shape(a)} and {_shape(b)} cannot be multiplied ({k1} != {k2})"
        )


@tensor_method("matmul")
def matmul(input, other):
    """Matrix product with broadcasting over batch dims (1-d operands as vectors)."""
    input, other = _pair("matmul", input, other)
    a, b = input._data, other._data
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"matmul: both arguments need at least 1 dimension, got shapes "
            f"{_shape(input)} and {_shape(other)}"
        )
    _check_inner("matmul", input, other)
    if a.ndim > 2 and b.ndim > 2:
        try:
            broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise ShapeError(
                f"matmul: batch dims of shapes {_shape(input)} and {_shape(other)} cannot broadcast"
            ) from None
    return MatmulBackward.apply(input, other)


install(
    __matmul__=matmul,
    __rmatmul__=lambda self, other: matmul(to_tensor(other, self), self),
)


@tensor_method("mm")
def mm(input, mat2):
    """Matrix product of two 2-D tensors (no broadcasting)."""
    input, mat2 = _pair("mm", input, mat2)
    _need_ndim("mm", input, (2,), "input")
    _need_ndim("mm", mat2, (2,), "mat2")
    _check_inner("mm", input, mat2)
    return MatmulBackward.apply(input, mat2)


@tensor_method("bmm")
def bmm(input, mat2):
    """Batched matrix product of two 3-D tensors with equal batch size (no broadcasting)."""
    input, mat2 = _pair("bmm", input, mat2)
    _check_bmm("bmm", input, mat2)
    return MatmulBackward.apply(input, mat2)


def _check_bmm(op, b1, b2):
    _need_ndim(op, b1, (3,), "batch1")
    _need_ndim(op, b2, (3,), "batch2")
    if b1._data.shape[0] != b2._data.shape[0]:
        raise ShapeError(
            f"{op}: batch sizes of shapes {_shape(b1)} and {_shape(b2)} differ "
            f"({b1._data.shape[0]} != {b2._data.shape[0]})"
        )
    _check_inner(op, b1, b2)


@tensor_method("mv")
def mv(input, vec):
    """Product of a 2-D matrix and a 1-D vector."""
    input, vec = _pair("mv", input, vec)
    _need_ndim("mv", input, (2,), "input")
    _need_ndim("mv", vec, (1,), "vec")
    _check_inner("mv", input, vec)
    return MatmulBackward.apply(input, vec)


def _dot(op, input, other):
    input, other = _pair(op, input, other)
    _need_ndim(op, input, (1,), "input")
    _need_ndim(op, other, (1,), "other")
    if input._data.shape != other._data.shape:
        raise ShapeError(
            f"{op}: expected both vectors to have the same number of elements, "
            f"got shapes {_shape(input)} and {_shape(other)}"
        )
    return MatmulBackward.apply(input, other)


@tensor_method("dot")
def dot(input, tensor):
    """Inner product of two 1-D tensors of equal length."""
    return _dot("dot", input, tensor)


@tensor_method("vdot")
def vdot(input, other):
    """Inner product of two 1-D tensors, conjugating the first (real dtypes: ``dot``)."""
    input = to_tensor(input)
    return _dot("vdot", _conj(input), other)


@tensor_method("outer", "ger")
def outer(input, vec2):
    """Outer product :math:`y_{ij} = a_i b_j` of two 1-D tensors (dtypes promote)."""
    input, vec2 = to_tensor(input), to_tensor(vec2, input)
    for t, what in ((input, "input"), (vec2, "vec2")):
        _need_ndim("outer", t, (1,), what)
    return MulBackward.call(input.reshape(-1, 1), vec2)


ger = outer


def _pair_dims(dims, na, nb, op="tensordot"):
    """``dims`` (int, pair of sequences, or tensor of either) as two lists of dims."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise ShapeError(f"{op}: expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise ShapeError(
                f"{op}: expects dims <= ndim of both operands ({na} and {nb}), but got dims={dims}"
            )
        return list(range(na - dims, na)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
        if len(da) != len(db):
            raise ShapeError(
                f"{op}: both dimension lists should have the same length, got {da} and {db}"
            )
        return da, db
    raise DTypeError(
        f"{op}: expects dims to be an int or a pair of lists of ints, but got dims={dims!r}"
    )


def _norm_list(dims, nd, op):
    out = [norm_dim(d, nd, op) for d in dims]
    if len(set(out)) != len(out):
        raise DimError(f"{op}: dim {dims} appears multiple times in the list of dims")
    return out


def tensordot(a, b, dims=2):
    """Sum of products over ``dims`` of ``a`` and ``b``: the last ``dims`` dims of ``a`` with
    the first of ``b``, or the dims listed in ``dims = (dims_a, dims_b)``."""
    a, b = _pair("tensordot", a, b)
    sa, sb = _shape(a), _shape(b)
    da, db = _pair_dims(dims, len(sa), len(sb))
    da, db = _norm_list(da, len(sa), "tensordot"), _norm_list(db, len(sb), "tensordot")
    for i, j in zip(da, db):
        if sa[i] != sb[j]:
            raise ShapeError(
                f"tensordot: contracted dimensions need to match, but first has "
                f"size {sa[i]} in dim {i} and second has size {sb[j]} in dim {j} "
                f"(shapes {sa} and {sb})"
            )
    fa = [i for i in range(len(sa)) if i not in da]
    fb = [j for j in range(len(sb)) if j not in db]
    k = math.prod(sa[i] for i in da)
    a2 = _permuted(a, fa + da).reshape(math.prod(sa[i] for i in fa), k)
    b2 = _permuted(b, db + fb).reshape(k, math.prod(sb[j] for j in fb))
    return MatmulBackward.apply(a2, b2).reshape(tuple(sa[i] for i in fa) + tuple(sb[j] for j in fb))


def _permuted(t, order):
    return t if order == sorted(order) else t.permute(order)


@tensor_method("kron")
def kron(input, other):
    """Kronecker product: block :math:`(i, j)` of the result is :math:`a_{ij}\\, b`
    (shapes padded with leading 1s to the same ndim; dtypes promote)."""
    input, other = to_tensor(input), to_tensor(other, input)
    sa, sb = _shape(input), _shape(other)
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a = input.reshape(tuple(x for n in sa for x in (n, 1)))
    b = other.reshape(tuple(x for n in sb for x in (1, n)))
    return MulBackward.call(a, b).reshape(tuple(x * y for x, y in zip(sa, sb)))


# -- cross -------------------------------------------------------------------------------


@register
class CrossBackward(Op):
    r"""Autograd node for the cross product :math:`c = a \times b` along one dim of size 3.

    Saves each input only if the other needs a gradient: each gradient is a cross product
    of the incoming gradient with the other input.

    Math
    ----
    .. math:: \frac{\partial \mathcal{L}}{\partial a} = b \times g, \qquad
              \frac{\partial \mathcal{L}}{\partial b} = g \times a

    (from :math:`g \cdot (a \times b) = a \cdot (b \times g) = b \cdot (g \times a)`).

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cross"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input : tuple
        ``b`` if ``a`` needs a gradient, ``a`` if ``b`` does.
    saves_output : bool
        False.

    Notes
    -----
    Backends: ``xp.cross(axis=dim)`` on inputs the wrapper broadcast to one shape (views).
    Integer inputs are exact with wrap-around. Without ``dim`` the first dim of size 3 is
    used (PyTorch's ``torch.cross`` default, without its deprecation warning).
    """

    __slots__ = ()
    schema_v1 = OpSchema(
        "cross", 1, AmpPolicy.KEEP_INPUT, input_arity=2, complex_grad="holomorphic"
    )
    saves_input = ((1,), (0,))

    @staticmethod
    def dispatch(be, a, b, dim):
        return be.cross(a, b, dim)

    def grad(self, F, g, a, b, out):
        dim = self.params["dim"]
        return (
            None if b is None else F.cross(b, g, dim),
            None if a is None else F.cross(g, a, dim),
        )


@tensor_method("cross")
def cross(input, other, dim=None):
    """Cross product of ``input`` and ``other`` (same ndim, broadcast) along ``dim`` (default:
    the first dim of size 3)."""
    input, other = _pair("cross", input, other)
    sa, sb = _shape(input), _shape(other)
    if len(sa) != len(sb):
        raise ShapeError(
            f"cross: inputs must have the same number of dimensions, got shapes {sa} and {sb}"
        )
    try:
        shape = broadcast_shapes(sa, sb)
    except ValueError:
        raise ShapeError(f"cross: shapes {sa} and {sb} cannot be broadcast together") from None
    if dim is None:
        d = next((i for i, n in enumerate(shape) if n == 3), None)
        if d is None:
            raise ShapeError(f"cross: no dimension of size 3 in input of shape {shape}")
    else:
        d = norm_dim(dim, len(shape), "cross")
    if sa[d] != 3 or sb[d] != 3:
        raise ShapeError(
            f"cross: inputs dimension {d} must have length 3, got {sa[d]} and "
            f"{sb[d]} (shapes {sa} and {sb})"
        )
    if sa != shape:
        input = input.expand(shape)
    if sb != shape:
        other = other.expand(shape)
    return CrossBackward.apply(input, other, dim=d)


# -- diagonals ---------------------------------------------------------------------------


@register
class DiagEmbedBackward(UnaryOp):
    r"""Autograd node for :math:`Y` = zeros with the last dim of :math:`x` on diagonal
    ``offset`` of the plane (``dim1``, ``dim2``).

    Saves nothing: the gradient is the same diagonal read from the incoming gradient.

    Math
    ----
    .. math:: Y_{\ldots, i, i + k, \ldots} = x_{\ldots, i}, \qquad
              \frac{\partial \mathcal{L}}{\partial x_{\ldots, i}} = G_{\ldots, i, i + k, \ldots}

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"diag_embed"``, ``AmpPolicy.KEEP_INPUT``.
    saves_input, saves_output : bool
        False, False.

    Notes
    -----
    Backends: ``xp.zeros`` then a write through the strided diagonal view. The two new
    dims have size ``n + |offset|``. Also the node of ``diag`` on a 1-D input.
    """

    __slots__ = ()
    schema_v1 = OpSchema("diag_embed", 1, AmpPolicy.KEEP_INPUT, complex_grad="holomorphic")

    @staticmethod
    def dispatch(be, x, offset, dim1, dim2):
        return be.diag_embed(x, offset, dim1, dim2)

    def grad(self, F, g, x, out):
        p = self.params
        return F.diagonal(g, p["offset"], p["dim1"], p["dim2"])


@tensor_method("diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (``dim1``, ``dim2``) planes hold the last dim of ``input`` on diagonal
    ``offset`` (zeros elsewhere)."""
    input = to_tensor(input)
    nd = input._data.ndim + 1
    d1, d2 = norm_dim(dim1, nd, "diag_embed"), norm_dim(dim2, nd, "diag_embed")
    if d1 == d2:
        raise DimError(f"diag_embed: diagonal dimensions cannot be identical ({dim1}, {dim2})")
    if input._data.ndim == 0:
        raise ShapeError("diag_embed: expected a tensor with at least 1 dimension, got 0-D")
    return DiagEmbedBackward.call(input, offset=int(offset), dim1=d1, dim2=d2)


@tensor_method("diag")
def diag(input, diagonal=0):
    """1-D input: a 2-D tensor with it on diagonal ``diagonal``; 2-D input: a copy of that
    diagonal."""
    input = to_tensor(input)
    nd = input._data.ndim
    if nd == 1:
        return DiagEmbedBackward.call(input, offset=int(diagonal), dim1=0, dim2=1)
    if nd == 2:
        return _clone(_diagonal(input, int(diagonal), 0, 1))
    raise ShapeError(
        f"diag: supports 1-D or 2-D tensors, got a {nd}-D tensor of shape {_shape(input)}"
    )


# -- cdist -------------------------------------------------------------------------------

_CDIST_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


@register
class CdistBackward(Op):
    r"""Autograd node for pairwise :math:`p`-norm distances between the rows of two sets.

    Saves the inputs and the output: the gradient divides by the distance, which the
    forward already computed.

    Math
    ----
    .. math:: d_{ij} = \Big(\sum_m |x1_{im} - x2_{jm}|^p\Big)^{1/p}, \qquad
              \frac{\partial d_{ij}}{\partial x1_{im}} = -\frac{\partial d_{ij}}
              {\partial x2_{jm}} = \mathrm{sign}(\delta)\,\frac{|\delta|^{p-1}}{d_{ij}^{p-1}},
              \quad \delta = x1_{im} - x2_{jm}

    taken as 0 where :math:`d_{ij} = 0`; :math:`p = \infty` puts
    :math:`\mathrm{sign}(\delta)` on the coordinates attaining the max, :math:`p = 0`
    (a count) has zero gradient.

    Attributes
    ----------
    schema_v1 : OpSchema
        ``"cdist"``, ``AmpPolicy.FORCE_FP32``.
    saves_input : bool
        True: ``x1`` and ``x2``.
    saves_output : bool
        True: the distances.

    Notes
    -----
    Backends: the (..., P, R, M) difference tensor reduced over M; for ``p = 2`` with more
    than 25 rows on either side (PyTorch's ``compute_mode`` rule) one GEMM:
    :math:`\sqrt{\max(|x1|^2 + |x2|^2 - 2\,x1 x2^\top, 10^{-30})}`, faster but with
    cancellation error for close points. The ``p = 2`` gradient is two GEMMs, no
    difference tensor. Batch dims broadcast.
    """

    __slots__ = ()
    schema_v1 = OpSchema("cdist", 1, AmpPolicy.FORCE_FP32, input_arity=2)
    saves_input = True
    saves_output = True

    @staticmethod
    def dispatch(be, x1, x2, p, use_mm):
        return be.cdist(x1, x2, p, use_mm)

    def grad(self, F, g, x1, x2, out):
        return F.cdist_backward(g, x1, x2, out, self.params["p"])


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` (..., P, M) and ``x2``
    (..., R, M): a (..., P, R) tensor (batch dims broadcast)."""
    x1, x2 = _pair("cdist", x1, x2)
    s1, s2 = _shape(x1), _shape(x2)
    for s, what in ((s1, "x1"), (s2, "x2")):
        if len(s) < 2:
            raise ShapeError(f"cdist: only supports at least 2D tensors, {what} got shape {s}")
    if not x1._dtype.is_floating_point:
        raise DTypeError(f"cdist: only supports floating-point dtypes, got {x1._dtype.name}")
    if s1[-1] != s2[-1]:
        raise ShapeError(
            f"cdist: x1 and x2 must have the same number of columns, got shapes "
            f"{s1} and {s2} ({s1[-1]} != {s2[-1]})"
        )
    try:
        broadcast_shapes(s1[:-2], s2[:-2])
    except ValueError:
        raise ShapeError(f"cdist: batch dims of shapes {s1} and {s2} cannot broadcast") from None
    p = float(p)
    if not p >= 0:
        raise ArgumentError(f"cdist: only supports non-negative p values, got {p}")
    if compute_mode not in _CDIST_MODES:
        raise ArgumentError(
            f"cdist: {compute_mode!r} is not a valid value for compute_mode "
            f"(expected one of {', '.join(_CDIST_MODES)})"
        )
    use_mm = p == 2 and (
        compute_mode == _CDIST_MODES[1]
        or (compute_mode == _CDIST_MODES[0] and (s1[-2] > 25 or s2[-2] > 25))
    )
    return CdistBackward.apply(x1, x2, p=p, use_mm=use_mm)
