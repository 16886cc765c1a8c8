"""The Tensor object: repr against torch, conversions (item/tolist/numpy/DLPack/Python
numbers), memory metadata, dtype casts, pickling and deepcopy."""

import copy
import pickle
import re

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, ShapeError

# -- repr ----------------------------------------------------------------------------------


def _case(data, dtype=None, why=None):
    mark = () if why is None else pytest.mark.xfail(strict=True, reason=why)
    return pytest.param(data, dtype, marks=mark, id=f"{data!r:.40}-{dtype}")


rs = np.random.RandomState(0)
REPR_CASES = [
    _case([1.0, 2.0, 3.0]),
    _case([1.5, 2.25, -3.0]),
    _case([1e-5, 1.0]),
    _case([1e10, 1.0]),
    _case([123456.789, 0.001]),
    _case([0.1, 0.2]),
    _case([1e-10, 1e-12]),
    _case([100000000.0, 1.0]),
    _case([1e9, 2e9]),
    _case([0.0, 0.0]),
    _case([1e-4, 1.0]),
    _case([12345.6789]),
    _case([[1e-3, 1e3], [5.0, 6.0]]),
    _case([1e5, 1e-5]),
    _case(3.0),
    _case(2.5),
    _case(-0.0),
    _case(float("nan")),
    _case([1e-5, float("nan")]),
    _case([float("-inf"), 2.5]),
    _case([1.0, 2.0], "float64"),
    _case(2.5, "float64"),
    _case([1.0, 2.0], "float16"),
    _case([1.0, 2.0], "bfloat16"),
    _case([0.1, 60000.0], "float16"),
    _case([], None),
    _case([[]], None),
    _case(np.zeros((0, 3)), "float32"),
    _case(np.zeros((2, 0)), "float64"),
    _case(np.zeros((0, 3)), "int32"),
    _case([[1.0, 2.0], [3.0, 4.0]]),
    _case(np.arange(8.0).reshape(2, 2, 2) / 3),
    _case([1, 2, 3]),
    _case([-100, 5]),
    _case(7),
    _case([True, False]),
    _case(True),
    _case([1, 2], "int8"),
    _case([1, 2], "uint8"),
    _case([[1, -2], [300, 4]], "int16"),
    _case(rs.randn(4, 5)),
    _case(np.arange(30.0).reshape(5, 6) * 1e-5),
    _case([float("nan"), 1.0, float("inf")]),
    _case([-0.0, 0.5]),
    _case(np.array([], np.int64)),
    _case(np.array([], np.bool_)),
    _case(rs.randn(8, 12).astype(np.float32)),
    _case(np.arange(2000.0) / 7),
    _case(np.arange(1600).reshape(40, 40)),
    _case(np.arange(1250.0).reshape(5, 5, 50) / 7),
]


def _repr_pair(data, dtype):
    t = torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None)
    return (
        repr(lucid.tensor(data, dtype=getattr(lucid, dtype) if dtype else None)),
        repr(t).replace("torch.", "lucid."),
    )


@pytest.mark.parametrize("data, dtype", REPR_CASES)
def test_repr_matches_torch(data, dtype):
    got, want = _repr_pair(data, dtype)
    assert got == want


@pytest.mark.parametrize(
    "data, dtype",
    [
        _case([1.0, 2.0], "float64"),
        _case([1.0, 2.0], "float32"),
        _case([1, 2], "int64"),
        _case(np.array([], np.float32), None),
    ],
)
def test_repr_follows_default_dtype(data, dtype):
    lucid.set_default_dtype(lucid.float64)
    torch.set_default_dtype(torch.float64)
    try:
        got, want = _repr_pair(data, dtype)
    finally:
        lucid.set_default_dtype(lucid.float32)
        torch.set_default_dtype(torch.float32)
    assert got == want


def _strip_node(s):
    return re.sub(r"grad_fn=<\w+?>", "grad_fn=<Node>", s)


@pytest.mark.parametrize("data", [[1.0, 2.0], 2.5, [[1.5, -2.0], [0.25, 8.0]]])
def test_repr_with_autograd_suffixes(data):
    lx = lucid.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    assert repr(lx) == repr(tx)
    assert _strip_node(repr(lx * 2)) == _strip_node(repr(tx * 2))
    assert _strip_node(repr((lx * 2).double())).replace("lucid.", "torch.") == _strip_node(
        repr((tx * 2).double())
    )
    assert "grad_fn=<MulBackward>" in repr(lx * 2)


def test_format_of_0d_tensor():
    assert f"{lucid.tensor(2.5):.2f}" == "2.50"
    assert f"{lucid.tensor([1.0, 2.0])}" == repr(lucid.tensor([1.0, 2.0]))


# -- conversions ---------------------------------------------------------------------------


def test_item_types():
    assert lucid.tensor(3).item() == 3 and type(lucid.tensor(3).item()) is int
    assert type(lucid.tensor(True).item()) is bool
    assert type(lucid.tensor(2.5).item()) is float
    assert lucid.tensor(2.5, dtype=lucid.bfloat16).item() == 2.5
    assert type(lucid.tensor(2.5, dtype=lucid.bfloat16).item()) is float
    assert lucid.tensor([[7.0]]).item() == 7.0
    with pytest.raises(ShapeError, match="item: a Tensor with 2 elements cannot be converted"):
        lucid.tensor([1.0, 2.0]).item()


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([[1.5, 2.0], [3.0, -4.0]], None),
        ([1, 2], None),
        ([True, False], None),
        (2.5, None),
        ([1.0, 0.5], "bfloat16"),
        ([1.0, 0.5], "float16"),
        ([], None),
    ],
)
def test_tolist_matches_torch(data, dtype):
    got = lucid.tensor(data, dtype=getattr(lucid, dtype) if dtype else None).tolist()
    want = torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None).tolist()
    assert got == want
    assert type(got) is type(want)


def test_numpy_is_zero_copy_both_ways():
    t = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = t.numpy()
    assert np.shares_memory(a, t.numpy())
    a[0, 0] = 10
    assert t.tolist()[0][0] == 10
    b = np.arange(4.0)
    f = lucid.from_numpy(b)
    b[1] = 7
    assert f.tolist() == [0, 7, 2, 3]
    assert np.shares_memory(f.numpy(), b)
    v = t.transpose(0, 1)
    assert np.shares_memory(v.numpy(), a)


def test_numpy_of_tensor_requiring_grad_raises():
    x = lucid.tensor([1.0], requires_grad=True)
    with pytest.raises(
        AutogradError, match="numpy: can't call numpy\\(\\) on a tensor that requires grad"
    ):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0]
    assert x.numpy(force=True).tolist() == [1.0]


def test_array_protocol():
    t = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32 and np.shares_memory(a, t.numpy())
    assert np.array(t, dtype=np.int32).dtype == np.int32
    c = np.array(t, copy=True)
    assert not np.shares_memory(c, t.numpy())
    np.testing.assert_array_equal(np.add(t, 1), [[2, 3], [4, 5]])


def test_dlpack_round_trips():
    t = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    n = np.from_dlpack(t)
    assert np.shares_memory(n, t.numpy())
    tt = torch.from_dlpack(t)
    assert tt.tolist() == t.tolist()
    tt[0, 0] = 9.0
    assert t.tolist()[0][0] == 9.0  # shares memory with torch
    src = torch.arange(6.0).reshape(2, 3)
    back = lucid.from_dlpack(src)
    assert back.dtype is lucid.float32 and back.shape == (2, 3)
    src[1, 2] = -1.0
    assert back.tolist()[1][2] == -1.0
    assert lucid.from_dlpack(np.arange(3)).dtype is lucid.int64
    assert t.__dlpack_device__() == (1, 0)


def test_tensor_from_torch_tensor_copies():
    src = torch.arange(3.0)
    t = lucid.tensor(src)
    src[0] = 5.0
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_len_and_iter():
    t = lucid.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert len(t) == 3
    rows = list(t)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(lucid.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(lucid.tensor(1.0))


def test_python_number_conversions():
    assert bool(lucid.tensor([1.0])) is True and bool(lucid.tensor(0)) is False
    assert float(lucid.tensor(2.5)) == 2.5 and int(lucid.tensor(3.7)) == 3
    assert int(lucid.tensor(-3.7)) == int(torch.tensor(-3.7))
    assert [10, 11, 12][lucid.tensor(2)] == 12
    assert complex(lucid.tensor(1.5)) == 1.5 + 0j
    with pytest.raises(
        ShapeError, match="bool: the truth value of a tensor with 2 elements is ambiguous"
    ):
        bool(lucid.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][lucid.tensor(1.0)]
    with pytest.raises(ShapeError):
        float(lucid.tensor([1.0, 2.0]))


# -- metadata ------------------------------------------------------------------------------


def test_shape_size_and_counts():
    t = lucid.tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == (2, 3, 4) and isinstance(t.shape, lucid.Size)
    assert repr(t.shape) == "lucid.Size([2, 3, 4])"
    assert t.size() == torch.zeros(2, 3, 4).size() and t.size(-1) == 4 and t.size(1) == 3
    assert t.shape[1:] == (3, 4) and isinstance(t.shape[1:], lucid.Size)
    assert t.shape.numel() == 24 == t.numel()
    assert t.ndim == t.dim() == 3
    assert t.nbytes == 96 and t.itemsize == 4
    with pytest.raises(lucid.errors.DimError, match="size: dimension out of range"):
        t.size(3)


@pytest.mark.parametrize(
    "make",
    [
        lambda M, a: M.tensor(a),
        lambda M, a: M.tensor(a).transpose(0, 1),
        lambda M, a: M.tensor(a).permute(2, 0, 1),
        lambda M, a: M.tensor(a).narrow(1, 1, 2),
        lambda M, a: M.tensor(a).expand(2, 2, 3, 4),
        lambda M, a: M.tensor(a).reshape(6, 4),
    ],
)
def test_strides_contiguity_offset_match_torch(make):
    a = np.arange(24.0).reshape(2, 3, 4)
    lt, tt = make(lucid, a), make(torch, a)
    assert lt.stride() == tt.stride()
    assert lt.stride(-1) == tt.stride(-1)
    assert lt.is_contiguous() == tt.is_contiguous()
    assert lt.storage_offset() == tt.storage_offset()


def test_element_size_and_data_ptr():
    for name in [
        "bool",
        "uint8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
    ]:
        assert (
            lucid.tensor([1], dtype=getattr(lucid, name)).element_size()
            == torch.tensor([1], dtype=getattr(torch, name)).element_size()
        )
    t = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.data_ptr() == t.numpy().ctypes.data
    assert t.transpose(0, 1).data_ptr() == t.data_ptr()
    assert t.narrow(0, 1, 1).data_ptr() == t.data_ptr() + 2 * 4
    assert t.clone().data_ptr() != t.data_ptr()


# -- casts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "bool", "float16"])
@pytest.mark.parametrize(
    "dst", ["float32", "float64", "int32", "int8", "uint8", "bool", "float16", "bfloat16"]
)
def test_to_dtype_values_match_torch(src, dst):
    data = [0.0, 1.0, -2.7, 3.5, 100.25] if src not in ("int64", "bool") else [0, 1, 2, 3, 100]
    if src == "bool":
        data = [True, False, True]
    if dst == "uint8":
        data = [abs(v) for v in data]
    lt = lucid.tensor(data, dtype=getattr(lucid, src)).to(getattr(lucid, dst))
    tt = torch.tensor(data, dtype=getattr(torch, src)).to(getattr(torch, dst))
    assert lt.dtype is getattr(lucid, dst)
    np.testing.assert_array_equal(np.asarray(lt.tolist()), np.asarray(tt.tolist()))


def test_cast_methods():
    t = lucid.tensor([1.5, -2.0])
    assert t.double().dtype is lucid.float64 and t.float().dtype is lucid.float32
    assert t.half().dtype is lucid.float16 and t.bfloat16().dtype is lucid.bfloat16
    assert t.long().tolist() == [1, -2] and t.int().dtype is lucid.int32
    assert t.bool().tolist() == [True, True]
    assert t.to("float64").dtype is lucid.float64
    assert t.to(lucid.float32) is t  # no-op casts return self
    assert t.type(lucid.int64).dtype is lucid.int64


def test_to_dtype_keeps_gradient_flow():
    x = lucid.tensor([1.5, -2.0], requires_grad=True)
    y = x.double() * 3
    y.sum().backward()
    assert x.grad.dtype is lucid.float32 and x.grad.tolist() == [3.0, 3.0]


# -- pickle / deepcopy ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "bfloat16", "float16"])
def test_pickle_round_trip(dtype):
    t = lucid.tensor([[1, 0], [1, 1]], dtype=getattr(lucid, dtype))
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype is t.dtype and back.device is t.device and back.shape == t.shape
    assert back.tolist() == t.tolist()


def test_pickle_keeps_requires_grad_and_copies_views_contiguously():
    x = lucid.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    back = pickle.loads(pickle.dumps(x))
    assert back.requires_grad and back.is_leaf and back.grad is None
    v = pickle.loads(pickle.dumps(x.detach().transpose(0, 1)))
    assert v.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_deepcopy():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lucid.tensor([3.0, 4.0])
    d = copy.deepcopy(x)
    assert d is not x and d.requires_grad and d.is_leaf
    assert d.grad.tolist() == [3.0, 4.0] and d.grad is not x.grad
    assert not np.shares_memory(d.detach().numpy(), x.detach().numpy())
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]  # memo respected


# -- construction basics -------------------------------------------------------------------


def test_tensor_constructor_and_grad_setter():
    t = lucid.Tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.dtype is lucid.float32
    with pytest.raises(
        ShapeError,
        match=r"grad: assigned grad of shape \(3,\) to a tensor "
        r"of shape \(2,\)",
    ):
        t.grad = lucid.tensor([1.0, 2.0, 3.0])
    with pytest.raises(lucid.errors.DTypeError, match="grad: got list"):
        t.grad = [1.0, 2.0]
    t.grad = None
    assert t.grad is None


def test_ragged_data_raises():
    with pytest.raises(ShapeError, match="tensor: nested sequences have inconsistent lengths"):
        lucid.tensor([[1, 2], [3]])
