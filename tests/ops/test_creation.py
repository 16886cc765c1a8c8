"""Creation ops against PyTorch: factories (shapes, dtypes, devices, values), ranges,
eye/tril/triu with gradients, meshgrid, Tensor.new_*, fill_/zero_; error paths."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, DeviceError, DTypeError, LucidError, ShapeError


def _m(x):
    """The module (torch or lucid) a tensor belongs to, so one lambda serves both."""
    return torch if isinstance(x, torch.Tensor) else lucid


def _name(dt):
    return str(dt).rsplit(".", 1)[-1]


def _same(lt, tt, values=True):
    assert tuple(lt.shape) == tuple(tt.shape)
    assert lt.dtype.name == _name(tt.dtype)
    assert str(lt.device) == str(tt.device)
    assert lt.requires_grad == tt.requires_grad
    if values:
        np.testing.assert_array_equal(
            lt.detach().numpy().astype(np.float64), tt.detach().double().numpy()
        )


def _both(fn, values=True):
    lt, tt = fn(lucid), fn(torch)
    _same(lt, tt, values)
    return lt


FACTORIES = [
    ("zeros", lambda m: m.zeros(2, 3)),
    ("zeros-tuple", lambda m: m.zeros((2, 3))),
    ("zeros-list", lambda m: m.zeros([4])),
    ("zeros-0d", lambda m: m.zeros([])),
    ("zeros-noargs", lambda m: m.zeros(())),
    ("zeros-empty", lambda m: m.zeros(0, 3)),
    ("zeros-size", lambda m: m.zeros(m.zeros(2, 3).shape)),
    ("zeros-int", lambda m: m.zeros(2, dtype=m.int32)),
    ("zeros-grad", lambda m: m.zeros(2, requires_grad=True)),
    ("ones", lambda m: m.ones(2, 1, dtype=m.float64)),
    ("ones-bool", lambda m: m.ones(3, dtype=m.bool)),
    ("ones-device", lambda m: m.ones(2, device="cpu")),
    ("ones-device-obj", lambda m: m.ones(2, device=m.device("cpu"))),
    ("full-float", lambda m: m.full((2, 2), 1.5)),
    ("full-int", lambda m: m.full((2,), 3)),
    ("full-bool", lambda m: m.full((2,), True)),
    ("full-nan", lambda m: m.full((2,), float("nan"), dtype=m.bool)),
    ("full-trunc", lambda m: m.full((2,), 2.7, dtype=m.int32)),
    ("full-neg", lambda m: m.full([3], -1.5, dtype=m.float16)),
    ("full-bf16", lambda m: m.full([3], 0.1, dtype=m.bfloat16)),
    ("full-inf", lambda m: m.full([1], float("-inf"))),
    ("full-0d", lambda m: m.full((), 7, dtype=m.uint8)),
    ("eye", lambda m: m.eye(3)),
    ("eye-rect", lambda m: m.eye(2, 4, dtype=m.bool)),
    ("eye-tall", lambda m: m.eye(4, 2, dtype=m.int64)),
    ("eye-0", lambda m: m.eye(0)),
    ("eye-grad", lambda m: m.eye(2, requires_grad=True)),
]


@pytest.mark.parametrize("fn", [f for _, f in FACTORIES], ids=[n for n, _ in FACTORIES])
def test_factory_matches_torch(fn):
    t = _both(fn)
    assert t.is_leaf


EMPTIES = [
    lambda m: m.empty(2, 3),
    lambda m: m.empty((0,), dtype=m.int8),
    lambda m: m.empty(2, requires_grad=True),
    lambda m: m.empty_like(m.ones(2, 2, dtype=m.int16)),
]


@pytest.mark.parametrize("fn", EMPTIES)
def test_empty_matches_torch_in_shape_and_dtype(fn):
    _both(fn, values=False)


LIKES = [
    ("zeros_like", lambda m, x: m.zeros_like(x)),
    ("ones_like-dtype", lambda m, x: m.ones_like(x, dtype=m.int64)),
    ("full_like", lambda m, x: m.full_like(x, 2.5)),
    ("full_like-int-trunc", lambda m, x: m.full_like(x.long(), 3.7)),
    ("full_like-grad", lambda m, x: m.full_like(x, 2, requires_grad=True)),
    ("zeros_like-device", lambda m, x: m.zeros_like(x, device="cpu")),
    ("new_zeros", lambda m, x: x.new_zeros(2, 3)),
    ("new_zeros-tuple", lambda m, x: x.new_zeros((4,), dtype=m.int8)),
    ("new_ones", lambda m, x: x.new_ones([1, 2])),
    ("new_full", lambda m, x: x.new_full((2,), 3)),
    ("new_full-int", lambda m, x: x.int().new_full((2,), 3.5)),
    ("new_tensor", lambda m, x: x.new_tensor([1, 2])),
    ("new_tensor-int", lambda m, x: x.int().new_tensor([1.5, -2.5])),
    ("new_tensor-grad", lambda m, x: x.new_tensor([1.0], requires_grad=True)),
]


@pytest.mark.parametrize("fn", [f for _, f in LIKES], ids=[n for n, _ in LIKES])
@pytest.mark.parametrize("src_dtype", ["float64", "float32"])
def test_like_and_new_factories_match_torch(fn, src_dtype):
    data = np.arange(6.0).reshape(2, 3).astype(src_dtype)
    lx = lucid.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    _same(fn(lucid, lx), fn(torch, tx))


def test_new_empty_and_empty_like_take_self_dtype():
    x = lucid.zeros(2, dtype=lucid.int16)
    assert x.new_empty(3, 1).dtype is lucid.int16 and tuple(x.new_empty(3, 1).shape) == (3, 1)
    assert lucid.empty_like(x, dtype=lucid.float64).dtype is lucid.float64


def test_factories_follow_default_dtype():
    lucid.set_default_dtype(lucid.float64)
    try:
        assert lucid.zeros(2).dtype is lucid.float64
        assert lucid.full((2,), 0.5).dtype is lucid.float64
        assert lucid.arange(0.0, 1.0, 0.5).dtype is lucid.float64
        assert lucid.linspace(0, 1, 3).dtype is lucid.float64
        assert lucid.eye(2).dtype is lucid.float64
        assert lucid.full((2,), 1).dtype is lucid.int64
    finally:
        lucid.set_default_dtype(lucid.float32)


def test_factories_use_default_device_and_reject_unknown_devices():
    assert lucid.zeros(1).device is lucid.get_default_device()
    with pytest.raises(DeviceError, match="device"):
        lucid.zeros(1, device="tpu")


RANGES = [
    ("arange-end", lambda m: m.arange(5)),
    ("arange-start-end", lambda m: m.arange(2, 7)),
    ("arange-step", lambda m: m.arange(1, 10, 3)),
    ("arange-neg-step", lambda m: m.arange(5, 0, -1)),
    ("arange-neg-step-2", lambda m: m.arange(10, -3, -4)),
    ("arange-float", lambda m: m.arange(0, 1, 0.1)),
    ("arange-float-end", lambda m: m.arange(2.5)),
    ("arange-float-neg", lambda m: m.arange(1.0, -1.0, -0.25)),
    ("arange-float-inexact", lambda m: m.arange(1, 2.5)),
    ("arange-empty", lambda m: m.arange(0)),
    ("arange-empty-2", lambda m: m.arange(3, 3)),
    ("arange-empty-float", lambda m: m.arange(1.5, 1.5, -0.5)),
    ("arange-int-dtype-trunc", lambda m: m.arange(0.5, 5.5, 1.5, dtype=m.int64)),
    # int64 truncates the arguments first; other integer dtypes take the length from the
    # arguments as given, the values from trunc(start) + i * trunc(step) (PyTorch's paths)
    ("arange-int32-float-end", lambda m: m.arange(0, 2.5, dtype=m.int32)),
    ("arange-int64-float-end", lambda m: m.arange(0, 2.5, dtype=m.int64)),
    ("arange-int32-float-args", lambda m: m.arange(1.9, 5.1, 1.5, dtype=m.int32)),
    ("arange-int64-float-args", lambda m: m.arange(1.9, 5.1, 1.5, dtype=m.int64)),
    ("arange-int32-neg-start", lambda m: m.arange(-0.5, 2, dtype=m.int32)),
    ("arange-int64-neg-start", lambda m: m.arange(-0.5, 2, dtype=m.int64)),
    ("arange-int16-neg-step", lambda m: m.arange(0, -2.5, -1, dtype=m.int16)),
    ("arange-int8-step-truncs-to-0", lambda m: m.arange(0, 2.5, 0.5, dtype=m.int8)),
    ("arange-float64", lambda m: m.arange(0, 3, dtype=m.float64)),
    ("arange-int32", lambda m: m.arange(-3, 3, 2, dtype=m.int32)),
    ("arange-tensor-args", lambda m: m.arange(m.tensor(4))),
    ("arange-bool-arg", lambda m: m.arange(True)),
    ("arange-grad", lambda m: m.arange(0.0, 2.0, requires_grad=True)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("linspace-neg", lambda m: m.linspace(3, -2, 7)),
    ("linspace-1", lambda m: m.linspace(2, 5, 1)),
    ("linspace-0", lambda m: m.linspace(2, 5, 0)),
    ("linspace-f64", lambda m: m.linspace(-1.5, 1e3, 11, dtype=m.float64)),
    ("linspace-int", lambda m: m.linspace(0, 10, 5, dtype=m.int64)),
    ("linspace-int-trunc", lambda m: m.linspace(-0.5, 10.7, 5, dtype=m.int64)),
    ("linspace-odd", lambda m: m.linspace(0.1, 0.9, 9)),
    ("logspace", lambda m: m.logspace(0, 2, 3)),
    ("logspace-base", lambda m: m.logspace(-2, 3, 6, base=2)),
    ("logspace-int", lambda m: m.logspace(0, 2, 3, dtype=m.int64)),
    ("logspace-f64", lambda m: m.logspace(0.5, -1.5, 4, base=3.0, dtype=m.float64)),
]


@pytest.mark.parametrize("fn", [f for _, f in RANGES], ids=[n for n, _ in RANGES])
def test_ranges_match_torch(fn):
    lt, tt = fn(lucid), fn(torch)
    _same(lt, tt, values=False)
    if lt.dtype.is_floating_point:
        np.testing.assert_allclose(lt.detach().numpy(), tt.detach().numpy(), rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(lt.numpy(), tt.numpy())


def test_linspace_is_exact_at_both_ends_and_symmetric():
    x = lucid.linspace(-0.3, 0.7, 101, dtype=lucid.float64).numpy()
    assert x[0] == -0.3 and x[-1] == 0.7
    np.testing.assert_allclose(x - x[0], (x[-1] - x[::-1]), rtol=0, atol=1e-15)


def _grad_parity(fn, data):
    lx = lucid.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    lo, to = fn(lx), fn(tx)
    np.testing.assert_array_equal(lo.detach().numpy(), to.detach().numpy())
    g = np.random.default_rng(0).standard_normal(tuple(to.shape))
    (lo * lucid.tensor(g)).sum().backward()
    (to * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())


TRIANGLES = [
    ("tril", lambda x: x.tril(), (4, 4)),
    ("tril-k", lambda x: _m(x).tril(x, 1), (3, 5)),
    ("tril-neg-k", lambda x: x.tril(diagonal=-2), (5, 3)),
    ("tril-batched", lambda x: x.tril(-1), (2, 3, 3, 4)),
    ("tril-big-k", lambda x: x.tril(10), (3, 4)),
    ("tril-small-k", lambda x: x.tril(-10), (3, 4)),
    ("tril-empty", lambda x: x.tril(), (0, 3)),
    ("tril-noncontig", lambda x: x.transpose(0, 1).tril(), (3, 4)),
    ("triu", lambda x: x.triu(), (4, 4)),
    ("triu-k", lambda x: x.triu(2), (3, 5)),
    ("triu-neg-k", lambda x: x.triu(-1), (5, 3)),
    ("triu-batched", lambda x: x.triu(1), (2, 4, 3)),
    ("triu-inplace", lambda x: (x * 1).triu_(1), (3, 4)),
    ("tril-inplace", lambda x: (x * 1).tril_(-1), (4, 3)),
    ("eye-times", lambda x: x * _m(x).eye(3, 4, dtype=x.dtype), (3, 4)),
]


@pytest.mark.parametrize(
    "fn,shape", [(f, s) for _, f, s in TRIANGLES], ids=[n for n, _, _ in TRIANGLES]
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_triangles_and_eye_match_torch_with_grads(fn, shape, dtype):
    _grad_parity(fn, np.random.default_rng(1).standard_normal(shape).astype(dtype))


@pytest.mark.parametrize("dtype", [lucid.int64, lucid.bool, lucid.uint8])
def test_triangles_on_integer_and_bool(dtype):
    x = lucid.ones(3, 3, dtype=dtype)
    tx = torch.ones(3, 3, dtype=getattr(torch, dtype.name))
    _same(x.tril(-1), tx.tril(-1))
    _same(lucid.triu(x), torch.triu(tx))


def test_tril_inplace_bumps_version_and_checks_leaves():
    x = lucid.ones(3, 3)
    x.tril_()
    assert x._version == 1 and x.numpy().sum() == 6
    w = lucid.ones(2, 2, requires_grad=True)
    with pytest.raises(AutogradError, match="tril_: a leaf"):
        w.tril_()
    with lucid.no_grad():
        w.triu_(1)
    assert w.detach().numpy().tolist() == [[0, 1], [0, 0]]


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(2,), (3,), (4,)], [(4,)], [(), (3,)]])
def test_meshgrid_matches_torch_with_grads(indexing, shapes):
    rng = np.random.default_rng(2)
    data = [rng.standard_normal(s) for s in shapes]
    lx = [lucid.tensor(d, requires_grad=True) for d in data]
    tx = [torch.tensor(d, requires_grad=True) for d in data]
    lo = lucid.meshgrid(*lx, indexing=indexing)
    to = torch.meshgrid(*tx, indexing=indexing)
    assert isinstance(lo, tuple) and len(lo) == len(to)
    gs = [rng.standard_normal(tuple(t.shape)) for t in to]
    for l, t in zip(lo, to):
        _same(l, t)
    sum((l * lucid.tensor(g)).sum() for l, g in zip(lo, gs)).backward()
    sum((t * torch.tensor(g)).sum() for t, g in zip(to, gs)).backward()
    for l, t in zip(lx, tx):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_meshgrid_list_argument_and_views():
    a, b = lucid.arange(3), lucid.arange(2)
    x, y = lucid.meshgrid([a, b])
    assert x._base is not None and y.dtype is lucid.int64
    np.testing.assert_array_equal(
        x.numpy(), np.meshgrid(np.arange(3), np.arange(2), indexing="ij")[0]
    )


# -- fill_ / zero_ --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype,value",
    [
        ("float32", 2.5),
        ("float64", -1),
        ("int64", 2.7),
        ("int32", -3.9),
        ("uint8", -1),
        ("uint8", -255),
        ("int8", -128),
        ("int16", 7.9),
        ("bool", 5),
        ("bool", 0.0),
        ("float16", float("inf")),
        ("bfloat16", 1 / 3),
        ("float32", True),
    ],
)
def test_fill_matches_torch(dtype, value):
    lx = lucid.zeros(2, 3, dtype=getattr(lucid, dtype))
    tx = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    assert lx.fill_(value) is lx
    tx.fill_(value)
    _same(lx, tx)


def test_fill_and_zero_bump_version_and_keep_storage():
    x = lucid.ones(4)
    v = x.narrow(0, 1, 2)
    v.fill_(5)
    assert x.tolist() == [1, 5, 5, 1] and x._version == v._version == 1
    x.zero_()
    assert x.tolist() == [0, 0, 0, 0] and x._version == 2
    x.fill_(lucid.tensor(3.5, dtype=lucid.float64))
    assert x.tolist() == [3.5] * 4 and x.dtype is lucid.float32


def test_fill_and_zero_on_leaf_requiring_grad_raise_outside_no_grad():
    w = lucid.ones(3, requires_grad=True)
    with pytest.raises(AutogradError, match="zero_: a leaf Variable that requires grad"):
        w.zero_()
    with pytest.raises(AutogradError, match="fill_: a leaf"):
        w.fill_(1.0)
    with lucid.no_grad():
        w.zero_()
        w.narrow(0, 0, 1).fill_(2.0)
    assert w.detach().tolist() == [2, 0, 0] and w.is_leaf and w.requires_grad


@pytest.mark.parametrize("how", ["fill", "zero", "view-fill", "tensor-value"])
def test_fill_gradients_match_torch(how):
    data = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    grads = []
    for lib in (lucid, torch):
        x = lib.tensor(data, requires_grad=True)
        v = lib.tensor(1.25, dtype=lib.float64, requires_grad=True)
        y = x * 3
        if how == "fill":
            y.fill_(2.0)
        elif how == "zero":
            y.zero_()
        elif how == "view-fill":
            y.narrow(1, 1, 1).fill_(-2.0)
        else:
            y.narrow(0, 1, 1).fill_(v)
        assert y.requires_grad
        (y * y).sum().backward()
        grads.append((x.grad.numpy(), None if v.grad is None else v.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    if how == "tensor-value":
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)


# -- errors ---------------------------------------------------------------------------------

ERRORS = [
    (lambda: lucid.zeros(-1, 3), ShapeError, "zeros: .*negative dimension"),
    (lambda: lucid.ones((2, -2)), ShapeError, r"ones: .*\[2, -2\]"),
    (lambda: lucid.empty(2.5), DTypeError, "empty: size must be a tuple of ints"),
    (lambda: lucid.zeros((2, 3.0)), DTypeError, "zeros: size must be a tuple of ints"),
    (lambda: lucid.full((2,), "a"), DTypeError, "full: fill_value must be a real number"),
    (
        lambda: lucid.full((2,), 300, dtype=lucid.uint8),
        DTypeError,
        "full: value 300 cannot be converted to type uint8 without overflow",
    ),
    (lambda: lucid.full((2,), 1e6, dtype=lucid.float16), DTypeError, "full: .*float16"),
    (lambda: lucid.full((2,), float("nan"), dtype=lucid.int64), DTypeError, "int64"),
    (
        lambda: lucid.ones(2, dtype=lucid.int64, requires_grad=True),
        DTypeError,
        "only floating point",
    ),
    (
        lambda: lucid.zeros(2, dtype="complex"),
        TypeError,
        "zeros\\(\\): argument 'dtype' must be lucid.dtype, not str",
    ),
    (lambda: lucid.zeros(2, dtype="float32"), TypeError, "zeros.*'dtype' must be lucid.dtype"),
    (lambda: lucid.arange(3, dtype=np.int64), TypeError, "arange.*'dtype' must be lucid.dtype"),
    (lambda: lucid.eye(2, dtype=np.dtype("float32")), TypeError, "eye.*'dtype'"),
    (lambda: lucid.ones(2).new_zeros(2, dtype="int64"), TypeError, "new_zeros.*'dtype'"),
    (lambda: lucid.eye(-1), ShapeError, "eye: n must be greater or equal to 0, got -1"),
    (lambda: lucid.eye(2, -3), ShapeError, "eye: m must be .* got -3"),
    (lambda: lucid.arange(5, 0), ShapeError, "arange: upper bound and lower bound inconsistent"),
    (lambda: lucid.arange(0, 5, -1), ShapeError, "inconsistent with step sign"),
    (lambda: lucid.arange(0, 10, 0), ShapeError, "arange: step must be nonzero"),
    (lambda: lucid.arange(0, 2.5, 0.5, dtype=lucid.int64), ShapeError, "step must be nonzero"),
    (lambda: lucid.arange(float("nan")), ShapeError, "arange: unsupported range"),
    (lambda: lucid.arange(0, float("inf")), ShapeError, "arange: unsupported range"),
    (lambda: lucid.arange(5, dtype=lucid.bool), DTypeError, "arange: .*bool"),
    (lambda: lucid.arange("a"), DTypeError, "arange: end must be a real number"),
    (lambda: lucid.linspace(0, 1, -1), ShapeError, "linspace: number of steps must be non-neg"),
    (lambda: lucid.logspace(0, 1, -2), ShapeError, "logspace: number of steps"),
    (lambda: lucid.linspace(0, 1, 2.5), DTypeError, "linspace: steps must be an int, got float"),
    (lambda: lucid.eye(2.0), DTypeError, "eye: n must be an int"),
    (lambda: lucid.full((1,), -1.5, dtype=lucid.uint8), DTypeError, "full: value -1.5 .*uint8"),
    (lambda: lucid.full((1,), -256, dtype=lucid.uint8), DTypeError, "full: value -256 .*uint8"),
    (lambda: lucid.zeros(1, dtype=lucid.int8).fill_(128), DTypeError, "fill_: value 128 .*int8"),
    (lambda: lucid.zeros_like([1, 2]), DTypeError, "zeros_like: expected a Tensor, got list"),
    (
        lambda: lucid.full_like(lucid.zeros(2, dtype=lucid.uint8), -256),
        DTypeError,
        "full_like: value -256 cannot be converted to type uint8",
    ),
    (
        lambda: lucid.tril(lucid.ones(3)),
        ShapeError,
        "tril: input tensor must have at least 2 dimensions, got 1",
    ),
    (lambda: lucid.ones(()).triu(), ShapeError, "triu: input tensor must have at least 2"),
    (lambda: lucid.ones(2, 2).tril(1.5), DTypeError, "tril: diagonal must be an int"),
    (lambda: lucid.meshgrid(), ShapeError, "meshgrid: expects a non-empty list"),
    (lambda: lucid.meshgrid([]), ShapeError, "meshgrid: expects a non-empty list"),
    (
        lambda: lucid.meshgrid(lucid.ones(2, 2), lucid.ones(2)),
        ShapeError,
        r"meshgrid: expected 0D or 1D tensors, got a tensor of shape \(2, 2\)",
    ),
    (
        lambda: lucid.meshgrid(lucid.ones(2), lucid.ones(3, dtype=lucid.float64)),
        DTypeError,
        "meshgrid: expects all tensors to have the same dtype, got float32 and float64",
    ),
    (
        lambda: lucid.meshgrid(lucid.ones(2), indexing="foo"),
        ShapeError,
        "meshgrid: indexing must be one of 'xy' or 'ij', got 'foo'",
    ),
    (lambda: lucid.meshgrid(lucid.ones(2), [1, 2]), DTypeError, "meshgrid: expected Tensors"),
    (
        lambda: lucid.zeros(3).fill_(lucid.ones(2)),
        ShapeError,
        "fill_: only supports 0-dimension value tensor but got tensor with 1 dimensions",
    ),
    (
        lambda: lucid.zeros(3, dtype=lucid.int64).fill_(float("inf")),
        DTypeError,
        "fill_: value inf cannot be converted to type int64 without overflow",
    ),
    (lambda: lucid.zeros(3, dtype=lucid.float16).fill_(1e6), DTypeError, "fill_: .*float16"),
    (lambda: lucid.zeros(3).fill_("x"), DTypeError, "fill_: value must be a real number"),
    (lambda: lucid.zeros(3).new_zeros(-1), ShapeError, "new_zeros: .*negative"),
    (lambda: lucid.zeros(3).new_full((2,), 1e40), DTypeError, "new_full: .*float32"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS)
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match) as info:
        fn()
    assert isinstance(info.value, LucidError)
