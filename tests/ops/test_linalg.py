"""Core linear algebra: parity with PyTorch (values, dtypes, gradients) over batch
broadcasting, 1-d operands, empty dims, non-contiguous inputs, float32/float64 and integer
inputs; einsum's equation forms; cdist's norms and compute modes; error paths."""

import math

import numpy as np
import pytest
import torch

import lucid
from lucid.autograd.gradcheck import gradcheck, gradgradcheck
from lucid.errors import DimError, DTypeError, ShapeError

from .saves_check import assert_saves_like_torch

TOL = {np.float64: (1e-10, 1e-12), np.float32: (2e-5, 2e-5)}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-4, 5, size=shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


def _leaves(arrays, nc):
    """Lucid and torch leaves and the inputs built from them: with ``nc`` every input of 2+
    dims is the transpose of a contiguous leaf (a non-contiguous view)."""
    out = {}
    for mod in (lucid, torch):
        leaves, inputs = [], []
        for a in arrays:
            flip = nc and a.ndim >= 2
            base = np.ascontiguousarray(a.swapaxes(-1, -2)) if flip else a
            leaf = mod.tensor(base.copy(), requires_grad=a.dtype.kind == "f")
            leaves.append(leaf)
            inputs.append(leaf.transpose(-1, -2) if flip else leaf)
        out[mod] = leaves, inputs
    return out


def _dname(dt):
    return str(dt).rsplit(".", 1)[-1]


def parity(fn, *arrays, nc=False, rtol=None, atol=None):
    """``fn(module, *inputs)`` agrees between Lucid and torch: shapes, dtypes, values and
    the gradients of every float leaf under a random upstream gradient."""
    dt = next((a.dtype.type for a in arrays if a.dtype.kind == "f"), np.float64)
    r, a_ = TOL.get(dt, (1e-10, 1e-12))
    rtol, atol = rtol or r, atol or a_
    io = _leaves(arrays, nc)
    lo, to = fn(lucid, *io[lucid][1]), fn(torch, *io[torch][1])
    lo = [lo] if isinstance(lo, lucid.Tensor) else list(lo)
    to = [to] if isinstance(to, torch.Tensor) else list(to)
    assert len(lo) == len(to)
    for l, t in zip(lo, to):
        assert tuple(l.shape) == tuple(t.shape)
        assert l.dtype.name == _dname(t.dtype)
        np.testing.assert_allclose(
            l.detach().numpy().astype(np.float64),
            t.detach().numpy().astype(np.float64),
            rtol=rtol,
            atol=atol,
        )
    pairs = [(l, t) for l, t in zip(lo, to) if t.requires_grad]
    assert [l.requires_grad for l, _ in pairs] == [True] * len(pairs)
    if pairs:
        rng = np.random.default_rng(1)
        gos = [rng.standard_normal(tuple(t.shape)).astype(_dname(t.dtype)) for _, t in pairs]
        sum((l * lucid.tensor(g)).sum() for (l, _), g in zip(pairs, gos)).backward()
        sum((t * torch.tensor(g)).sum() for (_, t), g in zip(pairs, gos)).backward()
        for l, t in zip(io[lucid][0], io[torch][0]):
            if t.grad is None:
                assert l.grad is None or not np.any(l.grad.numpy())
            else:
                np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)
    return lo


F = [np.float64, np.float32]


# -- products ------------------------------------------------------------------------------

PRODUCTS = [
    ("matmul-2d", lambda m, a, b: m.matmul(a, b), [(3, 4), (4, 2)]),
    ("matmul-batch-bcast", lambda m, a, b: a @ b, [(2, 1, 3, 4), (5, 4, 2)]),
    ("matmul-1d-left", lambda m, a, b: m.matmul(a, b), [(4,), (2, 4, 3)]),
    ("matmul-1d-right", lambda m, a, b: a.matmul(b), [(2, 3, 4), (4,)]),
    ("matmul-1d-1d", lambda m, a, b: a @ b, [(4,), (4,)]),
    ("matmul-k0", lambda m, a, b: m.matmul(a, b), [(3, 0), (0, 2)]),
    ("matmul-empty-batch", lambda m, a, b: a @ b, [(0, 3, 4), (4, 2)]),
    ("mm", lambda m, a, b: m.mm(a, b), [(3, 4), (4, 5)]),
    ("mm-k0", lambda m, a, b: a.mm(b), [(2, 0), (0, 3)]),
    ("bmm", lambda m, a, b: m.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    ("mv", lambda m, a, b: m.mv(a, b), [(3, 4), (4,)]),
    ("dot", lambda m, a, b: m.dot(a, b), [(5,), (5,)]),
    ("dot-empty", lambda m, a, b: a.dot(b), [(0,), (0,)]),
    ("vdot", lambda m, a, b: m.vdot(a, b), [(5,), (5,)]),
    ("outer", lambda m, a, b: m.outer(a, b), [(3,), (4,)]),
    ("ger", lambda m, a, b: a.ger(b), [(3,), (2,)]),
    ("tensordot-int", lambda m, a, b: m.tensordot(a, b, 2), [(2, 3, 4), (3, 4, 5)]),
    (
        "tensordot-lists",
        lambda m, a, b: m.tensordot(a, b, ([0, 2], [2, 1])),
        [(2, 3, 4), (5, 4, 2)],
    ),
    ("tensordot-neg", lambda m, a, b: m.tensordot(a, b, dims=([-1], [-2])), [(2, 3), (3, 2)]),
    ("tensordot-0", lambda m, a, b: m.tensordot(a, b, 0), [(2, 3), (2,)]),
    ("kron", lambda m, a, b: m.kron(a, b), [(2, 3), (3, 2)]),
    # (torch's kron of a transposed matrix with a vector fails in torch itself)
    ("kron-ndim", lambda m, a, b: (a.contiguous() if m is torch else a).kron(b), [(2, 3), (4,)]),
    ("kron-0d", lambda m, a, b: m.kron(a, b), [(), (3,)]),
    ("addmm", lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=2.0), [(3, 5), (3, 4), (4, 5)]),
    ("addmm-bcast", lambda m, c, a, b: c.addmm(a, b), [(5,), (3, 4), (4, 5)]),
    ("addmv", lambda m, c, a, b: m.addmv(c, a, b, alpha=-1.0), [(3,), (3, 4), (4,)]),
    (
        "baddbmm",
        lambda m, c, a, b: m.baddbmm(c, a, b, beta=2.0, alpha=0.5),
        [(1, 3, 5), (2, 3, 4), (2, 4, 5)],
    ),
    ("addbmm", lambda m, c, a, b: m.addbmm(c, a, b, beta=-1.0), [(3, 5), (2, 3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("nc", [False, True], ids=["c", "nc"])
@pytest.mark.parametrize("name,fn,shapes", PRODUCTS, ids=[c[0] for c in PRODUCTS])
def test_product_parity(name, fn, shapes, nc, dtype):
    parity(fn, *[_data(s, dtype, i) for i, s in enumerate(shapes)], nc=nc)


INT_PRODUCTS = [c for c in PRODUCTS if "add" not in c[0]] + [
    ("addmm-int", lambda m, c, a, b: m.addmm(c, a, b, beta=2, alpha=-3), [(3, 5), (3, 4), (4, 5)]),
    ("baddbmm-int", lambda m, c, a, b: c.baddbmm(a, b, alpha=2), [(3, 5), (2, 3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize("name,fn,shapes", INT_PRODUCTS, ids=[c[0] for c in INT_PRODUCTS])
def test_product_int_parity(name, fn, shapes):
    parity(fn, *[_data(s, np.int64, i) for i, s in enumerate(shapes)])


def test_k0_gives_zeros():
    out = lucid.mm(lucid.tensor(np.ones((3, 0))), lucid.tensor(np.ones((0, 2))))
    assert out.shape == (3, 2) and not np.any(out.numpy())


def test_products_promote_like_torch():
    a, b = np.arange(3), np.linspace(0, 1, 4)
    parity(lambda m, x, y: m.outer(x, y), a, b)
    parity(lambda m, x, y: m.kron(x, y), a, b)
    parity(lambda m, x, y: m.kron(x, y), a.astype(bool), a.astype(bool))


def test_addmm_beta_zero_ignores_nan_and_inplace():
    c = np.full((2, 2), np.nan)
    a, b = _data((2, 3), np.float64), _data((3, 2), np.float64, 1)
    out = lucid.addmm(lucid.tensor(c), lucid.tensor(a), lucid.tensor(b), beta=0)
    np.testing.assert_allclose(out.numpy(), a @ b)
    parity(lambda m, x, y, z: x.detach().clone().addmm_(y, z, alpha=2.0), c * 0 + 1, a, b)
    parity(
        lambda m, x, y, z: x.detach().clone().baddbmm_(y, z),
        _data((2, 2, 2), np.float64),
        _data((2, 2, 3), np.float64, 1),
        _data((2, 3, 2), np.float64, 2),
    )


def test_matmul_gradgrad_and_half():
    a = lucid.tensor(_data((3, 4), np.float64), requires_grad=True)
    b = lucid.tensor(_data((4, 2), np.float64, 1), requires_grad=True)
    assert gradgradcheck(lambda x, y: lucid.addmm(y.sum(0), x, y), (a, b))
    h = lucid.tensor(_data((3, 4), np.float16)) @ lucid.tensor(_data((4, 2), np.float16, 1))
    assert h.dtype is lucid.float16
    hb = lucid.einsum(
        "ij,jk",
        lucid.tensor(_data((3, 4), np.float32)).to(lucid.bfloat16),
        lucid.tensor(_data((4, 2), np.float32, 1)).to(lucid.bfloat16),
    )
    assert hb.dtype is lucid.bfloat16 and hb.shape == (3, 2)


PRODUCT_ERRORS = [
    (
        lambda a, b: lucid.matmul(a, b),
        [(3, 4), (5, 6)],
        ShapeError,
        r"matmul: shapes \(3, 4\) and \(5, 6\) cannot be multiplied \(4 != 5\)",
    ),
    (lambda a, b: a @ b, [(2, 3, 4), (3, 4, 2)], ShapeError, r"matmul: batch dims"),
    (lambda a, b: a @ b, [(), (3,)], ShapeError, r"matmul: both arguments need at least 1"),
    (
        lambda a, b: lucid.mm(a, b),
        [(2, 3), (4, 2)],
        ShapeError,
        r"mm: shapes \(2, 3\) and \(4, 2\) cannot be multiplied \(3 != 4\)",
    ),
    (
        lambda a, b: lucid.mm(a, b),
        [(2, 3, 1), (1, 2)],
        ShapeError,
        r"mm: expected input to be a 2-D tensor, got a 3-D",
    ),
    (
        lambda a, b: lucid.bmm(a, b),
        [(2, 2), (2, 2)],
        ShapeError,
        r"bmm: expected batch1 to be a 3-D",
    ),
    (
        lambda a, b: lucid.bmm(a, b),
        [(2, 2, 3), (3, 3, 2)],
        ShapeError,
        r"bmm: batch sizes of shapes \(2, 2, 3\) and \(3, 3, 2\) differ",
    ),
    (lambda a, b: lucid.mv(a, b), [(2, 3), (4,)], ShapeError, r"mv: shapes \(2, 3\) and \(4,\)"),
    (
        lambda a, b: lucid.dot(a, b),
        [(3,), (4,)],
        ShapeError,
        r"dot: expected both vectors to have the same number of elements",
    ),
    (lambda a, b: lucid.dot(a, b), [(3, 3), (3,)], ShapeError, r"dot: expected input to be"),
    (
        lambda a, b: lucid.outer(a, b),
        [(2, 3), (4,)],
        ShapeError,
        r"outer: expected input to be a 1-D tensor, got a 2-D",
    ),
    (
        lambda a, b: lucid.tensordot(a, b, 1),
        [(2, 3), (4, 2)],
        ShapeError,
        r"tensordot: contracted dimensions need to match, but first has size 3 in dim 1",
    ),
    (lambda a, b: lucid.tensordot(a, b, 3), [(2, 3), (3, 2)], ShapeError, r"dims <= ndim"),
    (lambda a, b: lucid.tensordot(a, b, -1), [(2, 3), (3, 2)], ShapeError, r"dims >= 0"),
    (
        lambda a, b: lucid.tensordot(a, b, ([1], [0, 1])),
        [(2, 3), (3, 2)],
        ShapeError,
        r"same length",
    ),
    (
        lambda a, b: lucid.tensordot(a, b, ([1, 1], [0, 0])),
        [(2, 3), (3, 2)],
        DimError,
        r"appears multiple times",
    ),
    (
        lambda a, b: lucid.tensordot(a, b, ([1], [3])),
        [(2, 3), (3, 2)],
        DimError,
        r"tensordot: dimension out of range",
    ),
    (lambda a, b: lucid.tensordot(a, b, 1.5), [(2, 3), (3, 2)], DTypeError, r"dims=1.5"),
    (
        lambda c, a: lucid.addmm(c, a, a.t()),
        [(3,), (2, 2)],
        ShapeError,
        r"addmm: input of shape \(3,\) cannot be broadcast to the product's shape \(2, 2\)",
    ),
    (lambda c, a: lucid.addmm(c, a, a), [(2, 1, 2), (2, 2)], ShapeError, r"addmm: input"),
]


@pytest.mark.parametrize(
    "fn,shapes,err,msg", PRODUCT_ERRORS, ids=[f"{i}" for i in range(len(PRODUCT_ERRORS))]
)
def test_product_errors(fn, shapes, err, msg):
    with pytest.raises(err, match=msg):
        fn(*[lucid.tensor(_data(s, np.float64, i)) for i, s in enumerate(shapes)])


def test_dtype_errors_name_both_dtypes():
    a32, a64 = lucid.tensor(np.ones((2, 2), np.float32)), lucid.tensor(np.ones((2, 2)))
    for fn in (lucid.matmul, lucid.mm, lucid.bmm, lucid.tensordot, lucid.cdist):
        with pytest.raises(DTypeError, match=r"float32 and float64"):
            fn(a32, a64)
    with pytest.raises(DTypeError, match=r"dot: .*float32 and float64"):
        lucid.dot(lucid.tensor(np.ones(2, np.float32)), lucid.tensor(np.ones(2)))
    with pytest.raises(DTypeError, match=r"einsum: .*float32 and float64"):
        lucid.einsum("ij,jk", a32, a64)
    with pytest.raises(DTypeError, match=r"addmm: .*float64 and float32"):
        lucid.addmm(a64, a32, a32)
    with pytest.raises(DTypeError, match=r"not implemented for bool"):
        lucid.mm(a32.to(lucid.bool), a32.to(lucid.bool))
    i = lucid.tensor(np.ones((2, 2), np.int64))
    with pytest.raises(DTypeError, match=r"addmm: for integral tensors"):
        lucid.addmm(i, i, i, alpha=0.5)


# -- einsum ------------------------------------------------------------------------------

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("ij,jk", [(2, 1), (3, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,...jk->...ik", [(3, 4), (2, 4, 2)]),
    ("i...->...", [(2, 3)]),
    ("i...,i...->i", [(2, 3), (2, 1)]),
    ("...", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iii->i", [(2, 2, 2)]),
    ("iji->j", [(2, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(0, 3)]),
    ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (2,)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("", [()]),
    ("->", [()]),
    (",i->i", [(), (3,)]),
]


@pytest.mark.parametrize("nc", [False, True], ids=["c", "nc"])
@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e[0] or "empty" for e in EINSUM])
def test_einsum_parity(eq, shapes, nc):
    parity(
        lambda m, *xs: m.einsum(eq, *xs),
        *[_data(s, np.float64, i) for i, s in enumerate(shapes)],
        nc=nc,
    )


def test_einsum_forms_dtypes_and_gradgrad():
    a, b = _data((2, 3), np.float32), _data((3, 4), np.float32, 1)
    parity(lambda m, x, y: m.einsum("ij,jk", [x, y]), a, b)
    parity(lambda m, x, y: m.einsum(x, [0, 1], y, [1, 2], [0, 2]), a, b)
    parity(lambda m, x, y: m.einsum(x, [Ellipsis, 1], y, [1, 2]), a, b)
    parity(lambda m, x, y: m.einsum("ij,jk", x, y), a.astype(np.int32), b.astype(np.int32))
    x = lucid.tensor(_data((3, 3), np.float64), requires_grad=True)
    y = lucid.tensor(_data((3, 2), np.float64, 1), requires_grad=True)
    assert gradgradcheck(lambda u, v: lucid.einsum("ii,ij->j", u, v), (x, y))
    assert gradcheck(lambda u: lucid.einsum("ij->", u), (y,))
    out = lucid.einsum("ij->ji", x)  # NumPy gives a view here: Lucid owns a copy
    assert not np.shares_memory(out.detach().numpy(), x.detach().numpy())


EINSUM_ERRORS = [
    ("ij,jk->ik", [(2, 3), (4, 2)], ShapeError, r"subscript 'j' has size 4 for operand 1"),
    ("ij,jk->iz", [(2, 3), (3, 2)], ValueError, r"output subscript 'z' does not appear"),
    ("ij,jk->ii", [(2, 3), (3, 2)], ValueError, r"appears more than once in the output"),
    (
        "ijk,jk->ik",
        [(2, 3), (3, 2)],
        ShapeError,
        r"do not match the 2 dimension\(s\) of "
        r"operand 0",
    ),
    ("ij,jk", [(2, 3)], ValueError, r"has 2 operand\(s\) but 1 were given"),
    ("i1", [(2, 3)], ValueError, r"invalid subscript '1'"),
    ("i->i->i", [(2,)], ValueError, r"more than one '->'"),
    ("...i...,i", [(2,), (2,)], ValueError, r"invalid ellipsis"),
    ("i.j", [(2, 3)], ValueError, r"invalid ellipsis"),
]


@pytest.mark.parametrize("eq,shapes,err,msg", EINSUM_ERRORS, ids=[e[0] for e in EINSUM_ERRORS])
def test_einsum_errors(eq, shapes, err, msg):
    with pytest.raises(err, match="einsum: .*" + msg):
        lucid.einsum(eq, *[lucid.tensor(_data(s, np.float64)) for s in shapes])


def test_einsum_error_kinds():
    with pytest.raises(ValueError, match="einsum: expected at least one operand"):
        lucid.einsum("ij")
    with pytest.raises(ValueError, match="sublist must be ints in"):
        lucid.einsum(lucid.tensor(np.ones(2)), [60])


# -- cross, diag, diag_embed ---------------------------------------------------------------

SHAPED = [
    (
        "cross-default",
        lambda m, a, b: (
            m.cross(a, b, dim=None)
            if m is lucid
            else m.cross(a, b, dim=next(i for i, n in enumerate(a.shape) if n == 3))
        ),
        [(4, 3, 3), (4, 3, 3)],
    ),
    ("cross-dim", lambda m, a, b: m.cross(a, b, dim=-1), [(2, 4, 3), (2, 4, 3)]),
    ("cross-bcast", lambda m, a, b: a.cross(b, dim=1), [(1, 3), (4, 3)]),
    ("diag-1d", lambda m, a: m.diag(a), [(3,)]),
    ("diag-1d-off", lambda m, a: a.diag(2), [(3,)]),
    ("diag-1d-neg", lambda m, a: m.diag(a, -1), [(2,)]),
    ("diag-2d", lambda m, a: m.diag(a), [(3, 4)]),
    ("diag-2d-off", lambda m, a: m.diag(a, -1), [(3, 4)]),
    ("diag-2d-beyond", lambda m, a: m.diag(a, 5), [(3, 4)]),
    ("diag-empty", lambda m, a: m.diag(a), [(0,)]),
    ("diag_embed", lambda m, a: m.diag_embed(a), [(2, 3)]),
    ("diag_embed-dims", lambda m, a: a.diag_embed(1, 0, 2), [(2, 3)]),
    ("diag_embed-neg", lambda m, a: m.diag_embed(a, -2, -1, 1), [(2, 2, 3)]),
]


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("nc", [False, True], ids=["c", "nc"])
@pytest.mark.parametrize("name,fn,shapes", SHAPED, ids=[c[0] for c in SHAPED])
def test_shaped_parity(name, fn, shapes, nc, dtype):
    parity(fn, *[_data(s, dtype, i) for i, s in enumerate(shapes)], nc=nc)


@pytest.mark.parametrize("name,fn,shapes", SHAPED, ids=[c[0] for c in SHAPED])
def test_shaped_int_parity(name, fn, shapes):
    parity(fn, *[_data(s, np.int32, i) for i, s in enumerate(shapes)])


def test_diag_2d_is_a_copy():
    x = lucid.tensor(np.arange(9.0).reshape(3, 3))
    d = lucid.diag(x)
    d.numpy()[0] = 100.0
    assert x.numpy()[0, 0] == 0.0


SHAPED_ERRORS = [
    (lambda a, b: lucid.cross(a, b), [(4, 4), (4, 4)], ShapeError, r"no dimension of size 3"),
    (
        lambda a, b: lucid.cross(a, b, dim=1),
        [(3, 4), (3, 4)],
        ShapeError,
        r"cross: inputs dimension 1 must have length 3, got 4 and 4",
    ),
    (lambda a, b: lucid.cross(a, b, dim=1), [(2, 3), (4, 3)], ShapeError, r"cannot be broadcast"),
    (lambda a, b: lucid.cross(a, b), [(3,), (4, 3)], ShapeError, r"same number of dimensions"),
    (lambda a, b: lucid.cross(a, b, dim=2), [(3,), (3,)], DimError, r"cross: dimension out"),
    (lambda a: lucid.diag(a), [()], ShapeError, r"diag: supports 1-D or 2-D tensors, got a 0-D"),
    (lambda a: lucid.diag(a), [(2, 2, 2)], ShapeError, r"got a 3-D"),
    (lambda a: lucid.diag_embed(a, 0, 0, 0), [(2, 3)], DimError, r"cannot be identical"),
    (lambda a: lucid.diag_embed(a, 0, 0, 3), [(2, 3)], DimError, r"dimension out of range"),
]


@pytest.mark.parametrize(
    "fn,shapes,err,msg", SHAPED_ERRORS, ids=[f"{i}" for i in range(len(SHAPED_ERRORS))]
)
def test_shaped_errors(fn, shapes, err, msg):
    with pytest.raises(err, match=msg):
        fn(*[lucid.tensor(_data(s, np.float64, i)) for i, s in enumerate(shapes)])


def test_cross_bool_and_dtype():
    with pytest.raises(DTypeError, match="cross: not implemented for bool"):
        lucid.cross(lucid.tensor([True, False, True]), lucid.tensor([True, True, True]))
    with pytest.raises(DTypeError, match="cross: .*float32 and float64"):
        lucid.cross(lucid.tensor(np.ones(3, np.float32)), lucid.tensor(np.ones(3)))


# -- cdist -------------------------------------------------------------------------------

CDIST = [
    (2.0, (4, 3), (5, 3)),
    (2.0, (2, 1, 4, 3), (3, 5, 3)),
    (1.0, (4, 3), (5, 3)),
    (0.0, (4, 3), (5, 3)),
    (0.5, (4, 3), (5, 3)),
    (3.0, (3, 4, 2), (3, 2, 2)),
    (math.inf, (4, 3), (5, 3)),
    (2.0, (0, 3), (5, 3)),
    (2.0, (4, 0), (5, 0)),
]


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("p,s1,s2", CDIST, ids=[f"p{c[0]}-{c[1]}-{c[2]}" for c in CDIST])
def test_cdist_parity(p, s1, s2, dtype):
    parity(lambda m, a, b: m.cdist(a, b, p=p), _data(s1, dtype), _data(s2, dtype, 1), nc=True)


@pytest.mark.parametrize(
    "mode",
    [
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    ],
)
def test_cdist_compute_modes(mode):
    parity(
        lambda m, a, b: m.cdist(a, b, compute_mode=mode),
        _data((30, 3), np.float64),
        _data((4, 3), np.float64, 1),
        rtol=1e-8,
        atol=1e-10,
    )


def test_cdist_zero_distance_has_zero_grad():
    for p in (0.5, 1.0, 2.0, 3.0, math.inf):
        x = np.array([[0.0, 1.0], [0.0, 0.0]])
        parity(lambda m, a, b: m.cdist(a, b, p=p), x, np.zeros((1, 2)))


CDIST_ERRORS = [
    ([(3,), (4, 3)], {}, ShapeError, r"cdist: only supports at least 2D tensors, x1 got"),
    ([(3, 2), (4, 3)], {}, ShapeError, r"cdist: x1 and x2 must have the same number of columns"),
    ([(2, 3, 2), (3, 4, 2)], {}, ShapeError, r"cdist: batch dims"),
    ([(3, 2), (4, 2)], {"p": -1}, ValueError, r"cdist: only supports non-negative p"),
    ([(3, 2), (4, 2)], {"compute_mode": "bad"}, ValueError, r"not a valid value for compute"),
]


@pytest.mark.parametrize(
    "shapes,kw,err,msg", CDIST_ERRORS, ids=[f"{i}" for i in range(len(CDIST_ERRORS))]
)
def test_cdist_errors(shapes, kw, err, msg):
    with pytest.raises(err, match=msg):
        lucid.cdist(*[lucid.tensor(_data(s, np.float64)) for s in shapes], **kw)
    with pytest.raises(DTypeError, match="cdist: only supports floating-point dtypes"):
        lucid.cdist(
            lucid.tensor(np.ones((2, 2), np.int64)), lucid.tensor(np.ones((2, 2), np.int64))
        )


# (name, fn over (t0, t1), which inputs require grad): after the op each input in turn is
# written in place; backward must raise exactly where torch's does (the value was saved)
# and otherwise give torch's gradients.
SAVES = [
    ("matmul_a", lambda t: t[0] @ t[1], (0,)),
    ("matmul_b", lambda t: t[0] @ t[1], (1,)),
    ("matmul_vec", lambda t: t[0][0] @ t[1][:, 0], (0,)),
    ("cross_a", lambda t: _m(t[0]).cross(t[0], t[1], dim=1), (0,)),
    ("cross_b", lambda t: _m(t[0]).cross(t[0], t[1], dim=1), (1,)),
]


def _m(t):
    return torch if isinstance(t, torch.Tensor) else lucid


@pytest.mark.parametrize("name,fn,wrt", SAVES, ids=[s[0] for s in SAVES])
def test_operands_the_backward_does_not_need_are_not_saved(name, fn, wrt):
    vals = [_data((3, 3), np.float64, 4), _data((3, 3), np.float64, 5)]
    assert_saves_like_torch(name, fn, wrt, vals)


def test_autocast_casts_mixed_operands():
    a = lucid.tensor(_data((2, 3), np.float32), requires_grad=True)
    b = lucid.tensor(_data((3, 2), np.float16, 1))
    c = lucid.tensor(_data((2,), np.float32, 2))
    with lucid.amp.autocast("cpu", dtype=lucid.bfloat16):
        for y in (
            lucid.mm(a, b),
            lucid.einsum("ij,jk", a, b),
            lucid.addmm(c, a, b),
            lucid.tensordot(a, b, 1),
        ):
            assert y.dtype is lucid.bfloat16 and y.shape == (2, 2)
        d = lucid.cdist(a, b.t())
    assert d.dtype is lucid.float32
    (y.float().sum() + d.sum()).backward()
    assert a.grad.dtype is lucid.float32
    with pytest.raises(DTypeError, match="mm: .*float32 and float16"):
        lucid.mm(a, b)
