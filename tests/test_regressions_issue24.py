"""Regression tests of issue 24, item 5: bugs where Lucid differed from PyTorch.

One test per bug, named after it; each compares with real torch where it applies and
failed before its fix.
"""

import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.errors import AutogradError

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_PIECEWISE = [-4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0, float("nan")]


def _both(data, dtype="float64"):
    x = lucid.tensor(np.array(data, dtype=dtype), requires_grad=True)
    t = torch.tensor(np.array(data, dtype=dtype), requires_grad=True)
    return x, t


# -- 1. second derivative of the piecewise-linear activations -------------------------------


@pytest.mark.parametrize(
    "name,kw",
    [
        ("relu6", {}),
        ("leaky_relu", {}),
        ("leaky_relu", {"negative_slope": 0.2}),
        ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
        ("relu", {}),
    ],
)
def test_piecewise_activation_first_gradient_has_grad_fn(name, kw):
    x, t = _both(_PIECEWISE)
    w = np.linspace(-1.0, 2.0, len(_PIECEWISE))
    (g,) = lucid.autograd.grad(getattr(F, name)(x, **kw), x, lucid.tensor(w), create_graph=True)
    (gt,) = torch.autograd.grad(getattr(TF, name)(t, **kw), t, torch.tensor(w), create_graph=True)
    assert g.grad_fn is not None and gt.grad_fn is not None
    np.testing.assert_array_equal(g.detach().numpy(), gt.detach().numpy())
    (gg,) = lucid.autograd.grad(g.sum(), x)
    (ggt,) = torch.autograd.grad(gt.sum(), t)
    np.testing.assert_array_equal(gg.numpy(), ggt.numpy())  # zeros, both


def test_hardsigmoid_first_gradient_has_grad_fn_whose_backward_raises():
    x, t = _both(_PIECEWISE)
    (g,) = lucid.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(TF.hardsigmoid(t).sum(), t, create_graph=True)
    assert g.grad_fn is not None and gt.grad_fn is not None
    # PyTorch scales by float32(1/6) even in float64
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-7)
    with pytest.raises(RuntimeError, match="not implemented"):
        torch.autograd.grad(gt.sum(), t)
    with pytest.raises(AutogradError, match="hardsigmoid.*not implemented"):
        lucid.autograd.grad(g.sum(), x)
    # hardswish, composed without it, keeps its second derivative (as PyTorch's)
    x, t = _both([-3.5, -3.0, -1.0, 0.0, 2.0, 3.0, 4.0])
    (g,) = lucid.autograd.grad(F.hardswish(x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(TF.hardswish(t).sum(), t, create_graph=True)
    np.testing.assert_allclose(
        lucid.autograd.grad(g.sum(), x)[0].numpy(),
        torch.autograd.grad(gt.sum(), t)[0].numpy(),
        rtol=1e-12,
    )


def test_hardtanh_gradient_passes_at_nan_like_torch():
    x, t = _both([float("nan"), -1.0, 0.0, 1.0])
    F.hardtanh(x).backward(lucid.full((4,), 2.0, dtype=lucid.float64))
    TF.hardtanh(t).backward(torch.full((4,), 2.0, dtype=torch.float64))
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


# -- 2. lu_solve's pivots -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32", "bool", "int64", "int16", "uint8"])
def test_lu_solve_refuses_pivots_not_int32(dtype):
    a = np.random.default_rng(0).standard_normal((3, 3)) + 3 * np.eye(3)
    b = np.ones((3, 2))
    LU, piv = lucid.linalg.lu_factor(lucid.tensor(a))
    LUt, pivt = torch.linalg.lu_factor(torch.tensor(a))
    with pytest.raises(RuntimeError, match="pivots should be a Tensor of scalar type"):
        torch.linalg.lu_solve(LUt, pivt.to(getattr(torch, dtype)), torch.tensor(b))
    with pytest.raises(lucid.errors.DTypeError, match="lu_solve: pivots should be .*int32"):
        lucid.linalg.lu_solve(LU, piv.to(getattr(lucid, dtype)), lucid.tensor(b))
    assert piv.dtype is lucid.int32 and pivt.dtype is torch.int32
    np.testing.assert_allclose(
        lucid.linalg.lu_solve(LU, piv, lucid.tensor(b)).numpy(),
        torch.linalg.lu_solve(LUt, pivt, torch.tensor(b)).numpy(),
        rtol=1e-12,
    )


def test_lu_solve_refuses_pivots_of_another_shape_or_not_a_tensor():
    a = np.random.default_rng(0).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    LU, piv = lucid.linalg.lu_factor(lucid.tensor(a))
    b = lucid.ones(2, 3, 1, dtype=lucid.float64)
    for bad in (piv[0], piv[:1], lucid.stack([piv, piv])):
        with pytest.raises(lucid.errors.ShapeError, match=r"LU.shape\[:-1\]"):
            lucid.linalg.lu_solve(LU, bad, b)
    with pytest.raises(lucid.errors.ArgumentTypeError, match="pivots must be a Tensor"):
        lucid.linalg.lu_solve(LU, piv.tolist(), b)


# -- 3. trace of bool, dropout of integers ---------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float16", "float32"])
def test_trace_refuses_bool_only(dtype):
    a = np.arange(9).reshape(3, 3) % 2 == 1 if dtype == "bool" else np.arange(9).reshape(3, 3)
    x, t = lucid.tensor(a.astype(dtype)), torch.tensor(a.astype(dtype))
    if dtype == "bool":
        with pytest.raises(NotImplementedError):
            torch.trace(t)
        with pytest.raises(lucid.errors.DTypeError, match="trace: not implemented for bool"):
            lucid.trace(x)
        return
    r, rt = lucid.trace(x), torch.trace(t)
    assert str(r.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    assert r.item() == rt.item()


_DROPOUTS = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout2d", "dropout3d"]


@pytest.mark.parametrize("name", _DROPOUTS)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_dropout_refuses_integer_input_when_it_would_scale(name, dtype):
    a = np.ones((2, 3, 4, 5), dtype=dtype)
    x, t = lucid.tensor(a), torch.tensor(a)
    fl, ft = getattr(F, name), getattr(TF, name)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ft(t, 0.5, training=True)
    with pytest.raises(lucid.errors.DTypeError, match=f"{name}: expected a floating point"):
        fl(x, 0.5, training=True)
    with pytest.raises(lucid.errors.DTypeError, match=f"{name}: expected a floating point"):
        fl(x, 0.5, training=True, inplace=True)
    # what PyTorch accepts: not training, p = 0, p = 1 (zeros), empty input
    for kw in (
        {"p": 0.5, "training": False},
        {"p": 0.0, "training": True},
        {"p": 1.0, "training": True},
    ):
        np.testing.assert_array_equal(fl(x, **kw).numpy(), ft(t, **kw).numpy())
        assert fl(x, **kw).dtype is x.dtype
    e = np.ones((0, 3, 4, 5), dtype=dtype)
    assert tuple(fl(lucid.tensor(e), 0.5, training=True).shape) == (0, 3, 4, 5)


# -- 4. threshold keeps nan ------------------------------------------------------------------


@pytest.mark.parametrize("inplace", [False, True])
def test_threshold_keeps_nan(inplace):
    data = [float("nan"), -1.0, 0.5, 1.0, 2.0, float("inf"), -float("inf")]
    x, t = _both(data)
    y = F.threshold(x * 1, 0.5, -7.0, inplace=inplace)
    yt = TF.threshold(t * 1, 0.5, -7.0, inplace=inplace)
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    y.backward(lucid.ones(len(data), dtype=lucid.float64))
    yt.backward(torch.ones(len(data), dtype=torch.float64))
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


# -- 5. multigammaln has no domain check in PyTorch 2.13 ----------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_multigammaln_below_its_domain_matches_torch(dtype):
    a = np.array([1e-30, 0.0, -1.0, -0.5, 0.5, 0.5000001, 0.9, 3.0, float("nan")], dtype)
    for p in (1, 2, 3):
        got = lucid.special.multigammaln(lucid.tensor(a), p).numpy()
        want = torch.special.multigammaln(torch.tensor(a), p).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == "float64" else 1e-5)
    np.testing.assert_allclose(
        lucid.special.multigammaln(lucid.tensor([1e-30]), 1).item(), 69.0775527898, rtol=1e-10
    )
    with pytest.raises(RuntimeError, match="boolean"):
        torch.special.multigammaln(torch.tensor([True]), 2)
    with pytest.raises(lucid.errors.DTypeError, match="multigammaln: .*bool"):
        lucid.special.multigammaln(lucid.tensor([True]), 2)


# -- 6. local_response_norm of integer input ------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 5, 2, 2), (2, 3, 2, 2, 1)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
def test_local_response_norm_of_integer_input_as_torch(shape, dtype):
    a = (np.arange(int(np.prod(shape))).reshape(shape) * 7 % 11).astype(dtype)
    kw = {"size": 3, "alpha": 0.5, "beta": 0.75, "k": 1.0}
    x, t = lucid.tensor(a), torch.tensor(a)
    if dtype != "int64":
        with pytest.raises(NotImplementedError, match="not implemented"):
            TF.local_response_norm(t, **kw)
        with pytest.raises(lucid.errors.DTypeError, match="local_response_norm: expected"):
            F.local_response_norm(x, **kw)
    else:  # PyTorch's int64 average pool floors the mean of squares
        r, rt = F.local_response_norm(x, **kw), TF.local_response_norm(t, **kw)
        assert r.dtype is lucid.float32 and rt.dtype is torch.float32
        np.testing.assert_allclose(r.numpy(), rt.numpy(), rtol=1e-6)
    e = np.zeros((0,) + shape[1:], dtype)  # empty: returned as is, any dtype
    r, rt = (
        F.local_response_norm(lucid.tensor(e), **kw),
        TF.local_response_norm(torch.tensor(e), **kw),
    )
    assert str(r.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    assert tuple(r.shape) == tuple(rt.shape)


# -- 7. Sequential.insert / ModuleList.insert ------------------------------------------------


@pytest.mark.parametrize("index", range(-4, 5))
def test_sequential_insert_matches_torch(index):
    # Sequential already matched: -len..len inserts as list.insert, beyond is an IndexError
    mods = lambda nn: [nn.ReLU(), nn.Tanh(), nn.Sigmoid()]
    s, st = lucid.nn.Sequential(*mods(lucid.nn)), torch.nn.Sequential(*mods(torch.nn))
    try:
        st.insert(index, torch.nn.Identity())
    except IndexError:
        with pytest.raises(lucid.errors.IndexingError, match="out of range"):
            s.insert(index, lucid.nn.Identity())
        return
    assert s.insert(index, lucid.nn.Identity()) is s
    assert [type(m).__name__ for m in s] == [type(m).__name__ for m in st]
    assert list(s._modules) == list(st._modules)


@pytest.mark.parametrize("index", range(-5, 6))
def test_module_list_insert_negative_index_as_list_insert(index):
    ml = lucid.nn.ModuleList([lucid.nn.ReLU(), lucid.nn.Tanh(), lucid.nn.Sigmoid()])
    ref = list(ml)
    new = lucid.nn.Identity()
    ml.insert(index, new)
    ref.insert(index, new)
    assert list(ml) == ref and len(ml) == 4
    assert list(ml._modules) == ["0", "1", "2", "3"]
    assert ml[ref.index(new) - 4] is new
    with pytest.raises(lucid.errors.ArgumentTypeError, match="ModuleList.insert"):
        ml.insert(1.0, new)


# -- 8. default_convert ---------------------------------------------------------------------


def test_default_convert_sequences_as_torch():
    from torch.utils.data import default_convert as tconvert
    from lucid.utils.data import default_convert
    import collections

    P = collections.namedtuple("P", "a b")
    # PyTorch 2.13 turns a plain tuple into a list ("backwards compatibility"), keeps a
    # namedtuple's type; Lucid already did the same
    for data in [
        (np.ones(2), 1),
        P(np.ones(2), 2),
        [np.ones(1), (np.zeros(1),)],
        {"k": (np.ones(1), 3)},
        range(3),
    ]:
        got, want = default_convert(data), tconvert(data)

        def same(g, w):
            assert type(g).__name__ == type(w).__name__, (g, w)
            if isinstance(w, torch.Tensor):
                np.testing.assert_array_equal(g.numpy(), w.numpy())
            elif isinstance(w, dict):
                assert g.keys() == w.keys()
                for k in w:
                    same(g[k], w[k])
            elif isinstance(w, (list, tuple)):
                assert len(g) == len(w)
                for a, b in zip(g, w):
                    same(a, b)
            else:
                assert g == w

        same(got, want)


# -- 9. Embedding(scale_grad_by_freq=True): two forwards, one backward ---------------------


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 4}, {"max_norm": 1.0}])
def test_embedding_scale_grad_by_freq_counts_per_forward_call(kw):
    # each call's node divides by the frequencies of its own indices (Lucid already did)
    W = np.random.default_rng(0).standard_normal((5, 3))
    G = np.random.default_rng(1).standard_normal((2, 2, 3))
    grads = []
    for lib in (lucid, torch):
        m = lib.nn.Embedding(5, 3, scale_grad_by_freq=True, **kw)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(W))
        idx = lib.tensor([[0, 1], [1, 3]])
        a, b, c = m(idx), m(lib.tensor([1, 4, 4, 4, 0])), m(idx)
        ((a * lib.tensor(G)).sum() + (b * 2).sum() + (c * 3).sum()).backward()
        grads.append(m.weight.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


# -- 10. CTC loss of an impossible alignment: inf, and a nan gradient ----------------------


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize(
    "lengths", [([3, 3], [4, 2]), ([2, 3], [3, 2]), ([0, 3], [1, 2]), ([3, 3], [2, 2])]
)
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_impossible_alignment_as_torch(reduction, lengths, zero_infinity):
    X = np.random.default_rng(0).standard_normal((3, 2, 4))
    tg = [[1, 2, 1, 3], [1, 2, 0, 0]]
    out = []
    for lib in (lucid, torch):
        x = lib.tensor(X, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(
            lib.nn.functional.log_softmax(x, 2),
            lib.tensor(tg),
            lib.tensor(lengths[0]),
            lib.tensor(lengths[1]),
            reduction=reduction,
            zero_infinity=zero_infinity,
        )
        loss.sum().backward()
        out.append((loss.detach().numpy(), x.grad.numpy()))
    (lv, lg), (tv, tgr) = out
    np.testing.assert_allclose(lv, tv, rtol=1e-10)  # inf where torch has inf
    np.testing.assert_array_equal(np.isnan(lg), np.isnan(tgr))  # nan on the same frames
    np.testing.assert_allclose(lg, tgr, rtol=1e-8, atol=1e-12)


# -- 11. GroupNorm with a single value per group --------------------------------------------


@pytest.mark.parametrize(
    "shape,groups",
    [
        ((1, 4), 4),
        ((1, 4, 1, 1), 4),
        ((1, 2), 2),
        ((2, 4), 4),
        ((2, 4, 1), 4),
        ((1, 4), 2),
        ((3, 6), 6),
        ((0, 4), 4),
        ((2, 4, 0), 4),
    ],
)
@pytest.mark.parametrize("training", [True, False])
def test_group_norm_single_value_refused_as_torch(shape, groups, training):
    # PyTorch refuses when N * C // G * prod(spatial) == 1, in training and evaluation
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    m, mt = lucid.nn.GroupNorm(groups, shape[1]), torch.nn.GroupNorm(groups, shape[1])
    m.train(training), mt.train(training)
    try:
        want = mt(torch.tensor(a)).detach().numpy()
    except ValueError as e:
        assert "more than 1 value per channel" in str(e)
        with pytest.raises(
            lucid.errors.ArgumentError, match="group_norm: expected more than 1 value per channel"
        ):
            m(lucid.tensor(a))
        return
    np.testing.assert_allclose(m(lucid.tensor(a)).detach().numpy(), want, atol=1e-5)


# -- 12. pooling's padding limit: half the undilated kernel ---------------------------------


@pytest.mark.parametrize(
    "k,d,p",
    [
        (3, 2, 2),
        (3, 2, 1),
        (2, 3, 2),
        (3, 1, 2),
        (2, 1, 1),
        (1, 3, 1),
        (4, 1, 2),
        (4, 2, 3),
        (3, 3, 3),
    ],
)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_pool_padding_at_most_half_the_undilated_kernel(k, d, p, n):
    a = np.random.default_rng(0).standard_normal((1, 2) + (9,) * n)
    fl, ft = getattr(F, f"max_pool{n}d"), getattr(TF, f"max_pool{n}d")
    try:
        want = ft(torch.tensor(a), k, 1, p, d).numpy()
    except RuntimeError as e:
        assert "half of" in str(e) and 2 * p > k
        with pytest.raises(lucid.errors.ArgumentError, match="pad should be at most half"):
            fl(lucid.tensor(a), k, 1, p, d)
        return
    assert 2 * p <= k
    np.testing.assert_array_equal(fl(lucid.tensor(a), k, 1, p, d).numpy(), want)


@pytest.mark.parametrize("k,p", [(3, 2), (2, 1), (3, 1), (2, 2), (4, 2)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_avg_pool_padding_at_most_half_the_kernel(k, p, n):
    a = np.random.default_rng(0).standard_normal((1, 2) + (7,) * n)
    fl, ft = getattr(F, f"avg_pool{n}d"), getattr(TF, f"avg_pool{n}d")
    if 2 * p > k:
        with pytest.raises(RuntimeError, match="half of"):
            ft(torch.tensor(a), k, 1, p)
        with pytest.raises(lucid.errors.ArgumentError, match="pad should be .*half of"):
            fl(lucid.tensor(a), k, 1, p)
        return
    np.testing.assert_allclose(
        fl(lucid.tensor(a), k, 1, p).numpy(), ft(torch.tensor(a), k, 1, p).numpy(), rtol=1e-12
    )


# -- 13. BCEWithLogitsLoss: pos_weight (and weight) may not widen the output ----------------

_BCE_SHAPES = [(3,), (1,), (2, 1), (2, 3), (4, 2, 3), (1, 3), (3, 1), (1, 1, 3), (), (2,)]


@pytest.mark.parametrize("shape", _BCE_SHAPES)
@pytest.mark.parametrize("arg", ["pos_weight", "weight"])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_bce_with_logits_weights_broadcast_to_the_input_only(shape, arg, reduction):
    rng = np.random.default_rng(0)
    x, t, w = rng.standard_normal((2, 3)), rng.random((2, 3)), rng.random(shape) + 0.5
    try:
        want = TF.binary_cross_entropy_with_logits(
            torch.tensor(x), torch.tensor(t), reduction=reduction, **{arg: torch.tensor(w)}
        )
    except RuntimeError:
        with pytest.raises(lucid.errors.ShapeError, match=f"with_logits: {arg} of shape"):
            F.binary_cross_entropy_with_logits(
                lucid.tensor(x), lucid.tensor(t), reduction=reduction, **{arg: lucid.tensor(w)}
            )
        with pytest.raises(lucid.errors.ShapeError, match=f"{arg} of shape"):
            lucid.nn.BCEWithLogitsLoss(reduction=reduction, **{arg: lucid.tensor(w)})(
                lucid.tensor(x), lucid.tensor(t)
            )
        return
    got = F.binary_cross_entropy_with_logits(
        lucid.tensor(x), lucid.tensor(t), reduction=reduction, **{arg: lucid.tensor(w)}
    )
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


# -- 14. views between dtypes of other element sizes ----------------------------------------

_VIEW_DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
_VIEW_LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.t(),
    "rows": lambda x: x[1:3],
    "offset 1": lambda x: x[:, 1:9],
    "offset 2": lambda x: x[:, 2:10],
    "offset 4": lambda x: x[:, 4:12],
    "row step": lambda x: x[::2],
    "last size 1": lambda x: x[:, :1],
    "last size 1 strided": lambda x: x[:, ::60],
    "odd last": lambda x: x[:, :3],
    "0-d": lambda x: x[1, 2],
    "empty": lambda x: x[:0],
    "empty last": lambda x: x[:, :0],
    "3-d": lambda x: x.reshape(2, 2, 60)[:, :, 4:8],
    "last stride 2": lambda x: x[:1, 4:12:2],
    "column": lambda x: x[:, 5],
}


def _storages(src, dst, seed):
    """The same random bytes as a torch and a Lucid tensor of dtype ``src`` (bytes 0/1 where
    a bool is involved; float sign/exponent bytes tamed so that no nan appears)."""
    raw = np.random.default_rng(seed).integers(
        0, 2 if "bool" in (src, dst) else 256, size=4096, dtype=np.uint8
    )
    raw[1::2] &= 0x3F
    return (
        torch.from_numpy(raw.copy()).view(getattr(torch, src)),
        lucid.tensor(raw.copy()).view(getattr(lucid, src)),
    )


def _bytes(t):
    t = t.contiguous().reshape(-1)
    return (t.view(torch.uint8).numpy() if isinstance(t, torch.Tensor) else t.numpy()).tobytes()


@pytest.mark.parametrize("src", _VIEW_DTYPES)
@pytest.mark.parametrize("dst", _VIEW_DTYPES)
def test_view_dtype_layout_rules_and_values_as_torch(src, dst):
    ts, ls = _storages(src, dst, 0)
    for name, lay in _VIEW_LAYOUTS.items():
        t, x = lay(ts[:240].reshape(4, 60)), lay(ls[:240].reshape(4, 60))
        try:
            tv = t.view(getattr(torch, dst))
        except RuntimeError:
            with pytest.raises(lucid.errors.ShapeError, match="view: to view"):
                x.view(getattr(lucid, dst))
            continue
        v = x.view(getattr(lucid, dst))
        assert (tuple(v.shape), v.stride(), v.storage_offset()) == (
            tuple(tv.shape),
            tv.stride(),
            tv.storage_offset(),
        ), name
        assert _bytes(v) == _bytes(tv), name


@pytest.mark.parametrize(
    "src,dst",
    [
        ("uint8", "float32"),
        ("float64", "int16"),
        ("int16", "complex64"),
        ("complex128", "float32"),
        ("bool", "int32"),
        ("float32", "bfloat16"),
    ],
)
def test_as_strided_of_a_dtype_view_reads_the_view_dtype(src, dst):
    # as_strided of a dtype view read its root's elements (and kept the root's dtype)
    ts, ls = _storages(src, dst, 1)
    tv, lv = ts[16:].view(getattr(torch, dst)), ls[16:].view(getattr(lucid, dst))
    n = tv.untyped_storage().nbytes() // tv.element_size()
    for size, stride, off in [((2, 3), (3, 1), 0), ((3, 2), (1, 5), 2), ((4,), (2,), n - 7)]:
        a, b = lv.as_strided(size, stride, off), tv.as_strided(size, stride, off)
        assert a.dtype is getattr(lucid, dst) and a.storage_offset() == off
        assert _bytes(a) == _bytes(b)
    with pytest.raises(lucid.errors.ShapeError, match="out of bounds"):
        lv.as_strided((2,), (1,), n - 1)


# -- 15. a write through .data after an in-place op: the backward reads the live storage -----


def _inplace_then_data_write(lib, op, write, view):
    x = lib.tensor(np.array([[-1.0, 0.5, 2.0], [-3.0, 1.5, -0.25]]), requires_grad=True)
    b = x * 1
    y = b[:, 1:] if view else b
    getattr(y, op + "_")()
    if write == "y.data.mul_":
        y.data.mul_(2)
    elif write == "y.data[0] =":
        y.data[0] = -5.0
    elif write == "base.data.mul_":
        b.data.mul_(-1)
    else:
        b.data[1] = 0.75
    (b * b).sum().backward()
    return b.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize(
    "op", ["relu", "exp", "sigmoid", "tanh", "neg", "abs", "square", "reciprocal"]
)
@pytest.mark.parametrize(
    "write", ["y.data.mul_", "y.data[0] =", "base.data.mul_", "base.data[1] ="]
)
@pytest.mark.parametrize("view", [False, True])
def test_data_write_after_inplace_op_reaches_the_saved_output(op, write, view):
    # the in-place op's node saves its output: PyTorch's is the tensor itself, so a write
    # through .data (no version bump) changes what the backward reads; Lucid saved a copy
    got, want = (_inplace_then_data_write(lib, op, write, view) for lib in (lucid, torch))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def test_recorded_write_after_inplace_op_still_raises():
    x = lucid.tensor([-1.0, 2.0], requires_grad=True)
    y = x * 1
    y.relu_()
    y.detach().mul_(3)  # bumps the version: the saved output is stale (PyTorch)
    with pytest.raises(lucid.errors.VersionMismatchError, match="modified by an in-place"):
        y.sum().backward()
