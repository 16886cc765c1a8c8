"""Shape ops and views: parity with PyTorch (values, dtypes, gradients) over 0-d, empty,
non-contiguous, negative-dim and integer/bool inputs; view semantics (shared storage and
version counter, in-place through views); error paths."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import lucid
from lucid.errors import DimError, DTypeError, LucidError, ShapeError


def _m(x):
    """The module (torch or lucid) a tensor belongs to, so one lambda serves both."""
    return torch if isinstance(x, torch.Tensor) else lucid


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _inputs(arrays, nc):
    """Lucid and torch leaves, and the (optionally non-contiguous) inputs made from them."""
    out = {"l": ([], []), "t": ([], [])}
    for a in arrays:
        grad = a.dtype.kind == "f"
        flip = nc and a.ndim >= 2
        base = np.ascontiguousarray(a.swapaxes(0, -1)) if flip else a
        for key, mod in (("l", lucid), ("t", torch)):
            leaf = mod.tensor(base.copy(), requires_grad=grad)
            x = leaf.transpose(0, -1) if flip else leaf
            if flip and a.size and a.shape[0] > 1 and a.shape[-1] > 1:
                assert not x.is_contiguous()
            out[key][0].append(leaf)
            out[key][1].append(x)
    return out


def _dname(dt):
    return str(dt).rsplit(".", 1)[-1]


def parity(fn, *arrays, tfn=None, nc=False, rtol=1e-7, atol=1e-9):
    """``fn`` on Lucid and torch (``tfn`` if given) agree: shapes, dtypes, values, and the
    gradients of every float leaf under a random upstream gradient."""
    ins = _inputs(arrays, nc)
    lo, to = fn(*ins["l"][1]), (tfn or fn)(*ins["t"][1])
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
    assert [l.requires_grad for l in lo] == [t.requires_grad for t in to]
    if not pairs:
        return lo
    rng = np.random.default_rng(1)
    gos = [rng.standard_normal(tuple(t.shape)).astype(_dname(t.dtype)) for _, t in pairs]
    sum((l * lucid.tensor(g)).sum() for (l, _), g in zip(pairs, gos)).backward()
    sum((t * torch.tensor(g)).sum() for (_, t), g in zip(pairs, gos)).backward()
    for l, t in zip(ins["l"][0], ins["t"][0]):
        if t.grad is None:
            assert l.grad is None or not np.any(l.grad.numpy())
        else:
            assert l.grad is not None
            np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)
    return lo


# (id, fn, shapes, integer/bool inputs allowed)
CASES = [
    ("squeeze", lambda x: x.squeeze(), [(1, 3, 1, 2)], True),
    ("squeeze-neg", lambda x: x.squeeze(-2), [(3, 1, 2)], True),
    ("squeeze-noop", lambda x: x.squeeze(0), [(3, 2)], True),
    ("squeeze-tuple", lambda x: x.squeeze((0, -1)), [(1, 3, 1, 1)], True),
    ("squeeze-0d", lambda x: x.squeeze(), [()], True),
    ("squeeze-0d-dim", lambda x: x.squeeze(-1), [()], True),
    ("squeeze-empty", lambda x: x.squeeze(), [(0, 1, 2)], True),
    ("unsqueeze", lambda x: x.unsqueeze(-1), [(2, 3)], True),
    ("unsqueeze-mid", lambda x: _m(x).unsqueeze(x, 1), [(2, 3)], True),
    ("unsqueeze-0d", lambda x: x.unsqueeze(-1), [()], True),
    ("flatten", lambda x: x.flatten(), [(2, 3, 4)], True),
    ("flatten-range", lambda x: _m(x).flatten(x, -3, -2), [(2, 3, 4, 1)], True),
    ("flatten-same", lambda x: x.flatten(1, 1), [(2, 3)], True),
    ("flatten-0d", lambda x: x.flatten(), [()], True),
    ("flatten-empty", lambda x: x.flatten(1), [(2, 0, 3)], True),
    ("unflatten", lambda x: x.unflatten(-1, (2, -1, 1)), [(3, 4)], True),
    ("ravel", lambda x: x.ravel(), [(3, 4)], True),
    ("reshape", lambda x: x.reshape(2, -1), [(3, 4)], True),
    ("view_as", lambda x, y: x.view_as(y), [(3, 4), (12,)], False),
    ("movedim", lambda x: x.movedim(0, -1), [(2, 3, 4)], True),
    ("movedim-tuple", lambda x: _m(x).movedim(x, (2, 0), (0, 1)), [(2, 3, 4)], True),
    ("moveaxis", lambda x: x.moveaxis(-1, 1), [(2, 3, 4)], True),
    ("swapaxes", lambda x: _m(x).swapaxes(x, 0, -1), [(2, 3, 4)], True),
    ("t", lambda x: x.t(), [(2, 3)], True),
    ("t-1d", lambda x: _m(x).t(x), [(3,)], True),
    ("t-0d", lambda x: x.t(), [()], True),
    ("T", lambda x: x.T, [(2, 3)], True),
    ("mT", lambda x: x.mT, [(2, 3, 4)], True),
    ("mH", lambda x: x.mH, [(2, 3, 4)], True),
    ("H", lambda x: x.H, [(2, 3)], True),
    ("adjoint", lambda x: _m(x).adjoint(x), [(3, 2)], True),
    ("expand_as", lambda x, y: x.expand_as(y), [(3, 1), (2, 3, 4)], True),
    ("broadcast_to", lambda x: _m(x).broadcast_to(x, (2, 3, 4)), [(3, 1)], True),
    ("broadcast_to-0d", lambda x: x.broadcast_to((2, 2)), [()], True),
    ("broadcast_tensors", lambda x, y: _m(x).broadcast_tensors(x, y), [(3, 1), (2, 1, 4)], True),
    ("narrow", lambda x: x.narrow(-1, 1, 2), [(2, 3, 4)], True),
    ("narrow-empty", lambda x: _m(x).narrow(x, 0, 3, 0), [(3, 2)], True),
    ("narrow-negstart", lambda x: x.narrow(1, -2, 2), [(2, 3)], True),
    ("diagonal", lambda x: x.diagonal(), [(3, 4)], True),
    ("diagonal-off", lambda x: _m(x).diagonal(x, 2), [(3, 4)], True),
    ("diagonal-negoff", lambda x: x.diagonal(-1, -1, 0), [(2, 3, 4)], True),
    ("diagonal-beyond", lambda x: x.diagonal(7), [(3, 4)], True),
    ("diagonal-empty", lambda x: x.diagonal(), [(0, 3)], True),
    ("unfold", lambda x: x.unfold(-1, 2, 1), [(2, 5)], True),
    ("unfold-step", lambda x: x.unfold(0, 2, 3), [(8, 3)], True),
    ("unfold-overlap", lambda x: x.unfold(1, 3, 1), [(2, 6, 2)], True),
    ("unfold-full", lambda x: x.unfold(1, 4, 1), [(2, 4)], True),
    ("unfold-0d", lambda x: x.unfold(0, 1, 1), [()], True),
    ("unfold-size0", lambda x: x.unfold(0, 0, 2), [(3,)], True),
    ("flip", lambda x: x.flip(0, 2), [(2, 3, 4)], True),
    ("flip-neg", lambda x: _m(x).flip(x, (-1,)), [(3, 4)], True),
    ("flip-0d", lambda x: x.flip(()), [()], True),
    ("fliplr", lambda x: _m(x).fliplr(x), [(2, 3)], True),
    ("flipud", lambda x: x.flipud(), [(3,)], True),
    ("roll", lambda x: x.roll(1), [(2, 3)], True),
    ("roll-dims", lambda x: _m(x).roll(x, (1, -5), (0, -1)), [(2, 3)], True),
    ("roll-empty", lambda x: x.roll(2, 0), [(0, 3)], True),
    ("repeat", lambda x: x.repeat(2, 3), [(2, 3)], True),
    ("repeat-lead", lambda x: x.repeat(2, 1, 2), [(3,)], True),
    ("repeat-zero", lambda x: x.repeat(0, 2), [(2, 3)], True),
    ("repeat-0d", lambda x: x.repeat(3), [()], True),
    ("tile", lambda x: _m(x).tile(x, (2,)), [(2, 3)], True),
    ("tile-more", lambda x: x.tile((2, 1, 2)), [(3,)], True),
    ("repeat_interleave", lambda x: _m(x).repeat_interleave(x, 3), [(2, 3)], True),
    ("repeat_interleave-dim", lambda x: x.repeat_interleave(2, dim=-1), [(2, 3)], True),
    (
        "repeat_interleave-counts",
        lambda x: x.repeat_interleave(_m(x).tensor([1, 0, 2]), dim=0),
        [(3, 2)],
        True,
    ),
    (
        "repeat_interleave-count1",
        lambda x: x.repeat_interleave(_m(x).tensor([2]), dim=1),
        [(3, 2)],
        True,
    ),
    ("repeat_interleave-0d", lambda x: x.repeat_interleave(2), [()], True),
    (
        "pad",
        lambda x: _m(x).nn.functional.pad(x, (1, 2)) if _m(x) is torch else lucid.pad(x, (1, 2)),
        [(2, 3)],
        True,
    ),
]

_PADS = [
    ("constant", (1, 2, 0, 1), {"value": 1.5}),
    ("constant", (-1, 2, 1, -1), {}),
    ("constant", (0, 0), {}),
    ("constant", (1, 1, 1, 1, 1, 1), {}),
    ("reflect", (2, 1, 1, 2), {}),
    ("reflect", (-1, 2), {}),
    ("replicate", (2, 1, 0, 3), {}),
    ("replicate", (1, -2), {}),
    ("circular", (3, 1, 1, 2), {}),
    ("circular", (2, -1), {}),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("nc", [False, True], ids=["contig", "noncontig"])
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_parity_float64(case, nc):
    _, fn, shapes, _ = case
    if nc and (case[0] == "view_as" or not any(len(s) >= 2 for s in shapes)):
        pytest.skip("no dim to transpose, or a view that needs contiguous input")
    parity(fn, *[_data(s, np.float64, i) for i, s in enumerate(shapes)], nc=nc)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.int64, np.int32, np.bool_], ids=["f32", "i64", "i32", "bool"]
)
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_parity_other_dtypes(case, dtype):
    _, fn, shapes, ints = case
    if not ints and dtype != np.float32:
        pytest.skip("floating only")
    parity(fn, *[_data(s, dtype, i) for i, s in enumerate(shapes)], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("nc", [False, True], ids=["contig", "noncontig"])
@pytest.mark.parametrize("mode,pads,kw", _PADS, ids=[f"{m}{p}" for m, p, _ in _PADS])
def test_pad_parity(mode, pads, kw, nc):
    parity(
        lambda x: (F.pad if isinstance(x, torch.Tensor) else lucid.pad)(x, pads, mode=mode, **kw),
        _data((2, 3, 4), np.float64),
        nc=nc,
    )


def test_pad_integer_constant():
    parity(
        lambda x: (F.pad if isinstance(x, torch.Tensor) else lucid.pad)(x, (1, 1), value=7),
        _data((2, 3), np.int64),
    )


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dims", [(0, 1), (-1, 0), (2, 1)])
def test_rot90(k, dims):
    parity(lambda x: x.rot90(k, dims), _data((2, 3, 4), np.float64))


def test_repeat_interleave_counts_only():
    r = lucid.repeat_interleave(lucid.tensor([1, 2, 0, 3]))
    assert r.dtype == lucid.int64
    assert r.tolist() == torch.repeat_interleave(torch.tensor([1, 2, 0, 3])).tolist()


def test_repeat_interleave_output_size():
    x = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.repeat_interleave(lucid.tensor([1, 2]), dim=0, output_size=3).shape == (3, 2)
    with pytest.raises(ShapeError, match="output_size"):
        x.repeat_interleave(2, dim=0, output_size=3)


def test_broadcast_shapes():
    assert lucid.broadcast_shapes((2, 1), (3, 1, 4), 4) == torch.broadcast_shapes(
        (2, 1), (3, 1, 4), 4
    )
    assert lucid.broadcast_shapes() == ()
    with pytest.raises(ShapeError, match=r"broadcast_shapes.*\(2, 3\).*\(4,\)"):
        lucid.broadcast_shapes((2, 3), (4,))


def test_reshape_keywords_and_sizes():
    x = lucid.tensor(_data((2, 3), np.float64))
    assert lucid.reshape(x, shape=(3, 2)).shape == (3, 2)
    assert x.reshape(x.shape[::-1]).shape == (3, 2)
    assert x.permute(dims=(1, 0)).shape == (3, 2)
    assert x.expand(size=(4, 2, 3)).shape == (4, 2, 3)
    assert lucid.flip(x, dims=(0,)).tolist() == x.tolist()[::-1]
    assert x.reshape(np.int64(6)).shape == (6,)


# -- view semantics -----------------------------------------------------------------

VIEWS = [
    ("unsqueeze", lambda x: x.unsqueeze(0)),
    ("squeeze", lambda x: x.unsqueeze(1).squeeze()),
    ("flatten", lambda x: x.flatten()),
    ("unflatten", lambda x: x.unflatten(1, (2, 2))),
    ("ravel", lambda x: x.ravel()),
    ("movedim", lambda x: x.movedim(0, 1)),
    ("t", lambda x: x.t()),
    ("T", lambda x: x.T),
    ("mT", lambda x: x.mT),
    ("narrow", lambda x: x.narrow(0, 0, 2)),
    ("diagonal", lambda x: x.diagonal()),
    ("unfold", lambda x: x.unfold(1, 2, 2)),
    ("expand", lambda x: x.unsqueeze(0).expand(2, 3, 4)),
    ("split", lambda x: x.split(2, 0)[0]),
    ("chunk", lambda x: x.chunk(2, 1)[0]),
    ("tensor_split", lambda x: x.tensor_split(3, 0)[0]),
    ("unbind", lambda x: x.unbind(0)[0]),
]


@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_views_share_storage_and_version(name, fn):
    x = lucid.tensor(np.arange(12.0).reshape(3, 4))
    v = fn(x)
    assert v.data_ptr() == x.data_ptr()
    assert v._base is x
    if name != "expand":
        v.add_(100.0)
        assert x._version == v._version == 1
        assert x.numpy().max() >= 100


def test_view_chain_base_and_writes():
    x = lucid.tensor(np.arange(24.0).reshape(2, 3, 4))
    v = x.movedim(0, -1).narrow(0, 1, 2).diagonal(0, 0, 1)  # shape (2, 2)
    t = torch.arange(24.0).reshape(2, 3, 4)
    tv = t.movedim(0, -1).narrow(0, 1, 2).diagonal(0, 0, 1)
    v.mul_(-1.0)
    tv.mul_(-1.0)
    assert v._base is x
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    assert x.narrow(1, 1, 1).data_ptr() != x.data_ptr()
    assert np.shares_memory(x.narrow(1, 1, 1).numpy(), x.numpy())


def test_reshape_views_when_strides_allow():
    x = lucid.tensor(np.arange(24.0).reshape(4, 6))
    n = x.narrow(1, 0, 3)
    assert not n.is_contiguous()
    r = n.reshape(2, 2, 3)
    assert r._base is x and np.shares_memory(r.numpy(), x.numpy())
    v = n.view(2, 2, 3)
    assert v._base is x
    f = x.t().flatten()  # needs a copy, as in PyTorch
    assert f._base is None and not np.shares_memory(f.numpy(), x.numpy())
    np.testing.assert_array_equal(f.numpy(), torch.arange(24.0).reshape(4, 6).t().flatten())
    with pytest.raises(ShapeError, match="view.*reshape"):
        x.t().view(-1)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.flip(0),
        lambda x: x.roll(1, 0),
        lambda x: x.repeat(1, 1),
        lambda x: x.tile((1,)),
        lambda x: x.rot90(0),
        lambda x: x.repeat_interleave(1, 0),
        lambda x: lucid.pad(x, (0, 0)),
        lambda x: x.fliplr(),
    ],
    ids=["flip", "roll", "repeat", "tile", "rot90", "repeat_interleave", "pad", "fliplr"],
)
def test_copies_do_not_alias(fn):
    x = lucid.tensor(np.arange(12.0).reshape(3, 4))
    y = fn(x)
    assert y._base is None and not np.shares_memory(y.numpy(), x.numpy())


INPLACE = [
    ("narrow", lambda b, y: b.narrow(1, 1, 2).mul_(y), (3, 2)),
    ("diagonal", lambda b, y: b.diagonal(1).mul_(y), (3,)),
    ("t-narrow", lambda b, y: b.t().narrow(0, 1, 2).mul_(y), (2, 3)),
    ("unsqueeze-movedim", lambda b, y: b.unsqueeze(0).movedim(0, 2).mul_(y), (3, 4, 1)),
    ("unfold", lambda b, y: b.unfold(1, 2, 2).mul_(y), (3, 2, 2)),
    ("flatten", lambda b, y: b.flatten().mul_(y), (12,)),
    ("squeeze", lambda b, y: b.unsqueeze(1).squeeze(1).add_(y), (3, 4)),
    ("mT-diag", lambda b, y: b.mT.diagonal(-1).mul_(y), (3,)),
    ("narrow-T", lambda b, y: b.T.narrow(0, 2, 2).mul_(y), (2, 3)),
    ("select", lambda b, y: b.select(1, 2).mul_(y), (3,)),
    ("two-writes", lambda b, y: (b.narrow(0, 0, 1).mul_(2.0), b.diagonal().mul_(y)), (3,)),
]


@pytest.mark.parametrize(
    "split",
    [lambda b: b.split(2, 1)[1], lambda b: b.T.chunk(2, 0)[1], lambda b: b.unbind(1)[2]],
    ids=["split", "chunk", "unbind"],
)
@pytest.mark.parametrize("mod", [torch, lucid], ids=["torch", "lucid"])
def test_outputs_of_multi_view_ops_refuse_inplace(split, mod):
    """As PyTorch: an output of an op returning several views may not be written in place
    (nor used after its base was) while it carries history."""
    b = mod.ones(3, 4, requires_grad=True) * 1.0
    with pytest.raises(RuntimeError, match="returns multiple views"):
        split(b).mul_(2.0)
    part = split(b)
    b.add_(1.0)
    with pytest.raises(RuntimeError, match="returns multiple views"):
        part * 2
    with mod.no_grad():
        split(mod.ones(3, 4) * 1.0).mul_(2.0)  # no history: allowed


@pytest.mark.parametrize("name,fn,yshape", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_through_view_of_nonleaf(name, fn, yshape):
    """Writing through a view of a non-leaf rebases the base: gradients match PyTorch."""
    x0 = _data((3, 4), np.float64)
    y0 = _data(yshape, np.float64, 1)
    res = []
    for mod in (lucid, torch):
        x = mod.tensor(x0, requires_grad=True)
        y = mod.tensor(y0, requires_grad=True)
        b = x * 1.0
        fn(b, y)
        (b * b).sum().backward()
        res.append((b.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_inplace_on_view_of_leaf_raises():
    x = lucid.tensor(_data((3, 4), np.float64), requires_grad=True)
    with pytest.raises(LucidError, match="leaf"):
        x.narrow(0, 0, 1).mul_(2.0)


def test_saved_input_modified_through_view_is_detected():
    x = lucid.tensor(_data((3, 4), np.float64), requires_grad=True)
    b = x * 1.0
    c = b * b  # saves b
    b.diagonal().mul_(2.0)
    with pytest.raises(LucidError, match="modified by an in-place operation"):
        c.sum().backward()


def test_double_backward_through_views():
    grads = []
    for mod in (lucid, torch):
        x = mod.tensor(_data((3, 4), np.float64), requires_grad=True)
        u = x.unfold(1, 2, 1)
        y = (
            (x.narrow(1, 1, 2) * x.narrow(1, 0, 2)).sum()
            + (u * u).sum()
            + (x.diagonal() * x.diagonal()).sum()
            + (
                x.split([1, 3], 1)[1] * x.flip(0).roll(1, 1)[:, 1:]
                if mod is torch
                else x.split([1, 3], 1)[1] * x.flip(0).roll(1, 1).narrow(1, 1, 3)
            ).sum()
        )
        (g,) = mod.autograd.grad(y, x, create_graph=True)
        (g * g).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


# -- errors -------------------------------------------------------------------------

_x = lucid.tensor(np.zeros((2, 3)))
_s = lucid.tensor(1.0)

ERRORS = [
    (lambda: _x.squeeze(2), DimError, r"squeeze.*range"),
    (lambda: _x.squeeze((0, 0)), DimError, "multiple times"),
    (lambda: _x.unsqueeze(3), DimError, r"unsqueeze.*\[-3, 2\].*3"),
    (lambda: _x.flatten(1, 0), DimError, "flatten: start_dim"),
    (lambda: _x.flatten(0, 5), DimError, "flatten"),
    (lambda: _x.unflatten(1, (2, 2)), ShapeError, r"unflatten.*\[2, 2\].*\(3\)"),
    (lambda: _x.unflatten(1, ()), ShapeError, "unflatten: sizes must be non-empty"),
    (lambda: _x.reshape(4, -1), ShapeError, r"reshape: shape \(4, -1\) is invalid.*6"),
    (lambda: _x.reshape(-1, -1), ShapeError, "only one dimension can be -1"),
    (lambda: _x.reshape(2.5), DTypeError, "reshape: expected a sequence of ints"),
    (lambda: _x.movedim((0, 1), (1,)), ShapeError, "movedim.*same number"),
    (lambda: _x.movedim((0, 1), (1, 1)), DimError, r"movedim: repeated dim in `destination`"),
    (lambda: _x.movedim(2, 0), DimError, "movedim"),
    (lambda: lucid.tensor(np.zeros((2, 3, 4))).t(), ShapeError, "t: expects.*3D"),
    (lambda: lucid.tensor(np.zeros(3)).mT, ShapeError, "mT.*1-D"),
    (lambda: _x.permute(0), ShapeError, "permute: number of dims"),
    (lambda: _x.permute(0, 0), DimError, "permute: repeated dim"),
    (lambda: _x.expand(3, 3), ShapeError, r"expand.*\(3\).*existing size \(2\)"),
    (lambda: _x.expand(3), ShapeError, "expand: the number of sizes"),
    (lambda: _x.expand(-1, 2, 3), ShapeError, "expand: -1 is not allowed"),
    (lambda: _x.expand_as(lucid.tensor(np.zeros((3, 3)))), ShapeError, "expand"),
    (
        lambda: lucid.broadcast_tensors(_x, lucid.tensor(np.zeros(4))),
        ShapeError,
        "broadcast_shapes",
    ),
    (lambda: _s.narrow(0, 0, 1), DimError, "narrow: cannot be applied to a 0-dim"),
    (lambda: _x.narrow(1, 2, 2), ShapeError, r"narrow: start \(2\) \+ length \(2\) exceeds.*3"),
    (lambda: _x.narrow(1, 4, 0), DimError, r"narrow: start out of range.*\[-3, 3\].*4"),
    (lambda: _x.narrow(1, 0, -1), ShapeError, "narrow: length must be non-negative"),
    (lambda: _x.narrow(2, 0, 1), DimError, "narrow"),
    (lambda: _x.diagonal(0.5), DTypeError, "diagonal: offset must be an int, got float"),
    (lambda: _x.narrow(0, 0, 1.0), DTypeError, "narrow: length must be an int"),
    (lambda: _x.unfold(0, "2", 1), DTypeError, "unfold: size must be an int"),
    (lambda: _x.rot90(1.5), DTypeError, "rot90: k must be an int"),
    (lambda: _x.diagonal(0, 1, 1), DimError, r"diagonal: dimensions cannot be identical"),
    (lambda: lucid.tensor(np.zeros(3)).diagonal(), DimError, "diagonal"),
    (lambda: _x.unfold(1, 4, 1), ShapeError, r"unfold: maximum size.*dimension 1 is 3.*4"),
    (lambda: _x.unfold(1, 2, 0), ShapeError, "unfold: step is 0"),
    (lambda: _x.unfold(2, 1, 1), DimError, "unfold"),
    (lambda: _x.flip(0, 0), DimError, "flip.*multiple times"),
    (lambda: _x.flip(2), DimError, "flip"),
    (lambda: lucid.tensor(np.zeros(3)).fliplr(), ShapeError, "fliplr: input must be >= 2-d"),
    (lambda: _s.flipud(), ShapeError, "flipud: input must be >= 1-d"),
    (lambda: _x.roll((1, 2), 0), ShapeError, "roll: shifts and dimensions must align"),
    (lambda: _x.roll((1, 2)), ShapeError, "roll: with dims=None"),
    (lambda: _x.roll(1, 2), DimError, "roll"),
    (lambda: _x.rot90(1, (0, 0)), DimError, "rot90: expected rotation dims to be different"),
    (lambda: _x.rot90(1, (0,)), ShapeError, "rot90: expected total rotation dims == 2"),
    (lambda: lucid.tensor(np.zeros(3)).rot90(), ShapeError, "rot90: expected total dims >= 2"),
    (lambda: _x.repeat(2), ShapeError, "repeat: number of dimensions of repeat dims"),
    (lambda: _x.repeat(2, -1), ShapeError, "repeat: repeats must be non-negative"),
    (lambda: _x.tile((-1,)), ShapeError, "tile: repeats must be non-negative"),
    (lambda: _x.repeat_interleave(-1), ShapeError, "repeat_interleave: repeats must be non-neg"),
    (
        lambda: _x.repeat_interleave(lucid.tensor([1, 2]), dim=1),
        ShapeError,
        r"repeat_interleave: repeats must have the same size.*2.*3",
    ),
    (lambda: _x.repeat_interleave(lucid.tensor([1, -2, 1]), dim=1), ShapeError, "non-negative"),
    (
        lambda: _x.repeat_interleave(lucid.tensor([1.0, 2.0]), dim=0),
        DTypeError,
        "repeat_interleave: repeats must be an integer tensor",
    ),
    (lambda: _x.repeat_interleave(2, dim=2), DimError, "repeat_interleave"),
    (lambda: lucid.pad(_x, (1,)), ShapeError, "pad: padding length must be divisible by 2"),
    (lambda: lucid.pad(_x, (1,) * 6), ShapeError, "pad: padding length should be less"),
    (lambda: lucid.pad(_x, (1, 1), mode="wrap"), ValueError, "pad: unsupported padding mode"),
    (
        lambda: lucid.pad(_x, (1, 1), mode="reflect", value=2.0),
        ValueError,
        "doesn't take in a value",
    ),
    (lambda: lucid.pad(_x, (-2, -2)), ShapeError, "pad: the input size 3.*negative output"),
    (
        lambda: lucid.pad(_x, (3, 0), mode="reflect"),
        ShapeError,
        r"pad: padding size should be less.*\(3, 0\) at dimension 1",
    ),
    (lambda: lucid.pad(_x, (4, 0), mode="circular"), ShapeError, "pad:.*circular"),
    (
        lambda: lucid.pad(lucid.tensor(np.zeros((2, 0))), (1, 0), mode="replicate"),
        ShapeError,
        "pad: cannot replicate-pad the empty dimension 1",
    ),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS, ids=[f"{e[2][:30]}" for e in ERRORS])
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
