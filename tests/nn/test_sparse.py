"""embedding, embedding_bag and one_hot against PyTorch (values, weight gradients in eager
and graph mode, padding_idx, max_norm's in-place renormalisation, scale_grad_by_freq, bag
modes and offsets), the Embedding/EmbeddingBag modules and the error paths."""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.errors import ArgumentError, DTypeError, IndexingError, ShapeError

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-5, atol=1e-6)}


def _weights(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return lucid.tensor(a.copy(), requires_grad=True), torch.tensor(a.copy(), requires_grad=True)


def _compare(lfn, tfn, idx, dtype=np.float64, shape=(10, 4), graph=False, extra=()):
    """Forward, weight gradient (eager, or graph mode with ``graph``) and the weight
    itself afterwards (max_norm changes it in place)."""
    lw, tw = _weights(shape, dtype)
    li, ti = lucid.tensor(idx), torch.tensor(idx)
    lx = [lucid.tensor(e) for e in extra]
    tx = [torch.tensor(e) for e in extra]
    lo, to = lfn(li, lw, *lx), tfn(ti, tw, *tx)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), **TOL[dtype])
    g = np.random.default_rng(1).standard_normal(tuple(to.shape)).astype(dtype)
    (lg,) = lucid.autograd.grad(lo, lw, lucid.tensor(g), create_graph=graph)
    (tg,) = torch.autograd.grad(to, tw, torch.tensor(g))
    np.testing.assert_allclose(lg.detach().numpy(), tg.numpy(), **TOL[dtype])
    np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), **TOL[dtype])
    return lo, lg


_IDX = np.array([[1, 2, 0, 2], [3, 9, 1, 1]])


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"padding_idx": 2},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"scale_grad_by_freq": True, "padding_idx": 1},
    ],
    ids=["plain", "padding", "padding-neg", "freq", "freq-padding"],
)
def test_embedding_parity(kw, dtype, graph):
    _compare(
        lambda i, w: F.embedding(i, w, **kw),
        lambda i, w: TF.embedding(i, w, **kw),
        _IDX,
        dtype,
        graph=graph,
    )


def test_embedding_padding_row_gets_no_gradient():
    w = lucid.randn(5, 3, requires_grad=True)
    F.embedding(lucid.tensor([0, 4, 4, 2]), w, padding_idx=4).sum().backward()
    assert not w.grad.numpy()[4].any() and w.grad.numpy()[0].all()


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (0.5, 1.0), (2.0, 3.0)])
def test_embedding_max_norm_renormalises_rows_in_place(max_norm, norm_type):
    _compare(
        lambda i, w: F.embedding(i, w, max_norm=max_norm, norm_type=norm_type),
        lambda i, w: TF.embedding(i, w, max_norm=max_norm, norm_type=norm_type),
        _IDX,
    )
    w = lucid.randn(10, 4) * 5
    v = w._version
    before = w.numpy().copy()
    F.embedding(lucid.tensor([1, 1, 3]), w, max_norm=max_norm, norm_type=norm_type)
    assert w._version > v
    np.testing.assert_array_equal(w.numpy()[[0, 2, 4]], before[[0, 2, 4]])  # not looked up
    norms = np.linalg.norm(w.numpy()[[1, 3]], ord=norm_type, axis=1)
    assert np.all(norms <= max_norm * (1 + 1e-6))


@pytest.mark.parametrize(
    "idx",
    [
        np.array(3),
        np.zeros((0,), np.int64),
        np.array([[[1, 2]], [[3, 0]]]),
        np.array([4, 5], np.int32),
    ],
    ids=["0d", "empty", "3d", "int32"],
)
def test_embedding_index_shapes(idx):
    lo, _ = _compare(lambda i, w: F.embedding(i, w), lambda i, w: TF.embedding(i, w), idx)
    assert tuple(lo.shape) == idx.shape + (4,)


def test_embedding_double_backward_is_linear_in_g():
    w = lucid.randn(6, 2, dtype=lucid.float64, requires_grad=True)
    g = lucid.randn(3, 2, dtype=lucid.float64, requires_grad=True)
    out = F.embedding(lucid.tensor([1, 1, 5]), w)
    (gw,) = lucid.autograd.grad(out, w, g, create_graph=True)
    (gg,) = lucid.autograd.grad(gw.sum(), g)
    np.testing.assert_array_equal(gg.numpy(), np.ones((3, 2)))


def test_embedding_errors():
    w = lucid.randn(5, 3)
    with pytest.raises(DTypeError, match="integer dtype"):
        F.embedding(lucid.tensor([1.0]), w)
    with pytest.raises(IndexingError, match="index out of range"):
        F.embedding(lucid.tensor([5]), w)
    with pytest.raises(IndexingError, match="index out of range"):
        F.embedding(lucid.tensor([-1]), w)
    with pytest.raises(ArgumentError, match="padding_idx must be within"):
        F.embedding(lucid.tensor([1]), w, padding_idx=5)
    with pytest.raises(ArgumentError, match="sparse"):
        F.embedding(lucid.tensor([1]), w, sparse=True)
    with pytest.raises(ShapeError, match="2-D"):
        F.embedding(lucid.tensor([1]), lucid.randn(5))


_FLAT = np.array([1, 2, 4, 5, 4, 3, 2, 9])
_OFF = np.array([0, 2, 2, 5])


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("layout", ["offsets", "2d", "last_offset"])
def test_embedding_bag_parity(layout, padding_idx, mode, graph):
    kw = dict(mode=mode, padding_idx=padding_idx)
    if layout == "2d":
        _compare(
            lambda i, w: F.embedding_bag(i, w, **kw),
            lambda i, w: TF.embedding_bag(i, w, **kw),
            _IDX,
            graph=graph,
        )
        return
    off = _OFF if layout == "offsets" else np.append(_OFF, len(_FLAT))
    kw["include_last_offset"] = layout == "last_offset"
    _compare(
        lambda i, w, o: F.embedding_bag(i, w, o, **kw),
        lambda i, w, o: TF.embedding_bag(i, w, o, **kw),
        _FLAT,
        graph=graph,
        extra=(off,),
    )


@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_per_sample_weights(padding_idx):
    psw = np.random.default_rng(2).standard_normal(len(_FLAT))
    lp = lucid.tensor(psw, requires_grad=True)
    tp = torch.tensor(psw, requires_grad=True)
    lw, tw = _weights((10, 4), np.float64)
    lo = F.embedding_bag(
        lucid.tensor(_FLAT),
        lw,
        lucid.tensor(_OFF),
        mode="sum",
        per_sample_weights=lp,
        padding_idx=padding_idx,
    )
    to = TF.embedding_bag(
        torch.tensor(_FLAT),
        tw,
        torch.tensor(_OFF),
        mode="sum",
        per_sample_weights=tp,
        padding_idx=padding_idx,
    )
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-10)
    (lo * lo).sum().backward()
    (to * to).sum().backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_embedding_bag_empty_bags_are_zero_and_max_norm():
    w = lucid.randn(10, 4)
    out = F.embedding_bag(lucid.tensor(_FLAT), w, lucid.tensor(_OFF), mode="mean")
    assert not out.numpy()[1].any()  # offsets 2, 2: an empty bag
    _compare(
        lambda i, w, o: F.embedding_bag(i, w, o, max_norm=1.0, mode="sum"),
        lambda i, w, o: TF.embedding_bag(i, w, o, max_norm=1.0, mode="sum"),
        _FLAT,
        extra=(_OFF,),
    )


def test_embedding_bag_errors():
    w = lucid.randn(10, 3)
    i = lucid.tensor(_FLAT)
    with pytest.raises(ArgumentError, match="only supported for mode='sum'"):
        F.embedding_bag(i, w, lucid.tensor(_OFF), per_sample_weights=lucid.ones(8))
    with pytest.raises(ArgumentError, match="offsets has to be"):
        F.embedding_bag(i, w)
    with pytest.raises(ArgumentError, match="offsets must be None"):
        F.embedding_bag(lucid.tensor(_IDX), w, lucid.tensor(_OFF))
    with pytest.raises(ArgumentError, match="mode has to be"):
        F.embedding_bag(i, w, lucid.tensor(_OFF), mode="min")
    with pytest.raises(ArgumentError, match="offsets must start at 0"):
        F.embedding_bag(i, w, lucid.tensor([1, 3]))
    with pytest.raises(ShapeError, match="per_sample_weights of shape"):
        F.embedding_bag(i, w, lucid.tensor(_OFF), mode="sum", per_sample_weights=lucid.ones(3))


@pytest.mark.parametrize("num_classes", [-1, 7])
@pytest.mark.parametrize("shape", [(5,), (2, 3), ()])
def test_one_hot(shape, num_classes):
    a = np.random.default_rng(3).integers(0, 5, size=shape)
    lo = F.one_hot(lucid.tensor(a), num_classes)
    to = TF.one_hot(torch.tensor(a), num_classes)
    assert lo.dtype is lucid.int64
    np.testing.assert_array_equal(lo.numpy(), to.numpy())


def test_one_hot_errors():
    with pytest.raises(IndexingError, match="smaller than num_classes"):
        F.one_hot(lucid.tensor([0, 3]), 3)
    with pytest.raises(IndexingError, match="non-negative"):
        F.one_hot(lucid.tensor([-1, 0]))
    with pytest.raises(ArgumentError, match="empty"):
        F.one_hot(lucid.tensor([], dtype=lucid.int64))
    with pytest.raises(DTypeError, match="int64"):
        F.one_hot(lucid.tensor([1.0]))
    assert tuple(F.one_hot(lucid.tensor([], dtype=lucid.int64), 4).shape) == (0, 4)


# -- modules -------------------------------------------------------------------------------


def test_embedding_module_init_and_padding_row():
    lucid.manual_seed(0)
    m = nn.Embedding(2000, 16, padding_idx=3)
    w = m.weight.detach().numpy()
    assert not w[3].any()
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.02 and abs(rest.std() - 1) < 0.02  # N(0, 1)
    assert repr(m) == repr(tnn.Embedding(2000, 16, padding_idx=3))
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


def test_embedding_module_matches_torch_with_copied_weights():
    tm = tnn.Embedding(10, 4, padding_idx=0, scale_grad_by_freq=True)
    lm = nn.Embedding(10, 4, padding_idx=0, scale_grad_by_freq=True)
    lm.load_state_dict({"weight": lucid.tensor(tm.weight.detach().numpy())})
    lo, to = lm(lucid.tensor(_IDX)), tm(torch.tensor(_IDX))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())
    (lo**2).sum().backward()
    (to**2).sum().backward()
    np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-6)


def test_embedding_from_pretrained():
    src = lucid.randn(4, 3)
    m = nn.Embedding.from_pretrained(src)
    assert not m.weight.requires_grad
    assert m.weight.data_ptr() == src.data_ptr()  # shared, not copied
    assert nn.Embedding.from_pretrained(src, freeze=False).weight.requires_grad
    np.testing.assert_array_equal(m(lucid.tensor([2])).numpy(), src.numpy()[[2]])
    b = nn.EmbeddingBag.from_pretrained(src, mode="sum")
    assert not b.weight.requires_grad
    np.testing.assert_allclose(
        b(lucid.tensor([[0, 1]])).numpy(), src.numpy()[[0]] + src.numpy()[[1]], rtol=1e-6
    )
    with pytest.raises(ShapeError, match="2-dimensional"):
        nn.Embedding.from_pretrained(lucid.randn(4))


def test_embedding_bag_module_matches_torch():
    tm = tnn.EmbeddingBag(10, 4, mode="max", padding_idx=2)
    lm = nn.EmbeddingBag(10, 4, mode="max", padding_idx=2)
    assert not lm.weight.detach().numpy()[2].any()
    lm.load_state_dict({"weight": lucid.tensor(tm.weight.detach().numpy())})
    lo = lm(lucid.tensor(_FLAT), lucid.tensor(_OFF))
    to = tm(torch.tensor(_FLAT), torch.tensor(_OFF))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())
    lo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(lm.weight.grad.numpy(), tm.weight.grad.numpy())
    assert repr(lm) == repr(tm)


def test_embedding_non_contiguous_weight_and_indices():
    a = np.random.default_rng(4).standard_normal((4, 10))
    lw, tw = lucid.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    idx = np.array([[1, 7, 7], [0, 9, 3]])
    li, ti = lucid.tensor(idx).T, torch.tensor(idx).T
    lo, to = F.embedding(li, lw.T), TF.embedding(ti, tw.T)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())
    (lo**2).sum().backward()
    (to**2).sum().backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_frequency(mode):
    """The documented semantics (torch 2.13's CPU embedding_bag divides some rows by another
    index's count, pytorch/pytorch#190063): the reference is torch's embedding + bag sum."""
    idx, off = np.array([1, 1, 2, 3, 4, 4, 4, 5]), np.array([0, 3, 5])
    lw, tw = _weights((8, 3), np.float64)
    lo = F.embedding_bag(
        lucid.tensor(idx), lw, lucid.tensor(off), mode=mode, scale_grad_by_freq=True
    )
    rows = TF.embedding(torch.tensor(idx), tw, scale_grad_by_freq=True)
    bags = [rows[0:3], rows[3:5], rows[5:]]
    to = torch.stack([b.sum(0) if mode == "sum" else b.mean(0) for b in bags])
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-12)
    g = np.random.default_rng(5).standard_normal((3, 3))
    for graph in (False, True):
        (lg,) = lucid.autograd.grad(lo, lw, lucid.tensor(g), retain_graph=True, create_graph=graph)
        (tg,) = torch.autograd.grad(to, tw, torch.tensor(g), retain_graph=True)
        np.testing.assert_allclose(lg.detach().numpy(), tg.numpy(), rtol=1e-12, atol=1e-14)
    with pytest.raises(ArgumentError, match="max mode does not support"):
        F.embedding_bag(
            lucid.tensor(idx), lw, lucid.tensor(off), mode="max", scale_grad_by_freq=True
        )


def test_embedding_bag_is_one_node_and_per_sample_weight_grads_in_graph_mode():
    psw = np.random.default_rng(6).standard_normal(len(_FLAT))
    lp, tp = lucid.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    lw, tw = _weights((10, 4), np.float64)
    lo = F.embedding_bag(
        lucid.tensor(_FLAT),
        lw,
        lucid.tensor(_OFF),
        mode="sum",
        per_sample_weights=lp,
        padding_idx=2,
    )
    # torch has no double backward of embedding_bag's per-sample weights: compose it
    keep = torch.tensor(_FLAT != 2)
    bag = torch.repeat_interleave(torch.arange(4), torch.tensor(np.diff(np.append(_OFF, 8))))
    rows = tw[torch.tensor(_FLAT)][keep] * tp[keep].unsqueeze(1)
    to = torch.zeros(4, 4, dtype=torch.float64).index_add(0, bag[keep], rows)
    assert lo.grad_fn.name() == "EmbeddingBagBackward"
    g = np.random.default_rng(7).standard_normal((4, 4))
    lgs = lucid.autograd.grad(lo, [lw, lp], lucid.tensor(g), create_graph=True)
    tgs = torch.autograd.grad(to, [tw, tp], torch.tensor(g), create_graph=True)
    for a, b in zip(lgs, tgs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    (lh,) = lucid.autograd.grad((lgs[1] ** 2).sum(), lw)  # d(psw grad)/d weight
    (th,) = torch.autograd.grad((tgs[1] ** 2).sum(), tw)
    np.testing.assert_allclose(lh.numpy(), th.numpy(), rtol=1e-12, atol=1e-14)
