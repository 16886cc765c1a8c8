"""Tensor-with-number arithmetic (``lucid.ops.binary.scalar_ops``) against PyTorch: values for
every floating dtype and operator form, PyTorch's float16 rounding rule, one-input nodes
named like the general op, and nothing saved."""

import numpy as np
import pytest
import torch

import lucid

OPS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__"]
NUMBERS = [0.1, 3, -7.7, 1e-3, 300.5, 0, -0.0, float("inf")]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_values_match_torch_bit_for_bit(op, dtype):
    a = np.random.default_rng(0).standard_normal(257).astype(dtype)
    for v in NUMBERS:
        got = getattr(lucid.tensor(a), op)(v)
        want = getattr(torch.tensor(a), op)(v)
        assert got.dtype.name == str(want.dtype).split(".")[1]
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{op} {v}")


def test_alpha_forms():
    a = np.random.default_rng(1).standard_normal((2, 3))
    for lt, tt in [(lucid.tensor(a), torch.tensor(a))]:
        np.testing.assert_allclose(lt.add(2, alpha=-0.5).numpy(), tt.add(2, alpha=-0.5).numpy())
        np.testing.assert_allclose(lt.sub(1.5, alpha=3).numpy(), tt.sub(1.5, alpha=3).numpy())


def test_one_input_node_named_as_the_general_op():
    x = lucid.ones(3, requires_grad=True)
    for y, name in [
        (x * 2, "MulBackward"),
        (2 + x, "AddBackward"),
        (x - 1, "SubBackward"),
        (x / 4, "DivBackward"),
    ]:
        assert y.grad_fn.name() == name and len(y.grad_fn.next_edges) == 1
        assert f"grad_fn=<{name}>" in repr(y)


def test_nothing_saved_and_gradients():
    a = lucid.tensor([1.0, -2.0], requires_grad=True)
    x = a * 1
    y = (x * 3.0 + 1) / 2.0 - 0.5
    x.mul_(10)  # no node saved x
    y.sum().backward()
    assert a.grad.tolist() == [1.5, 1.5]


def test_other_operands_take_the_general_op():
    assert (lucid.ones(2, dtype=lucid.int32) * 2).grad_fn is None
    b = lucid.ones(2, dtype=lucid.bfloat16, requires_grad=True) * 0.1
    assert type(b.grad_fn).__name__ == "MulBackward" and b.dtype is lucid.bfloat16
    x = lucid.ones(2, requires_grad=True)
    assert type((x * True).grad_fn).__name__ == "MulBackward"
    assert type((1 - x).grad_fn).__name__ == "RsubScalarBackward"
    assert type((1 / x).grad_fn).__name__ == "DivBackward"


@pytest.mark.parametrize("op", OPS)
def test_int64_with_python_int_matches_torch(op):
    a = np.array([0, 1, -5, 7, 2**62, -(2**63)], dtype=np.int64)
    for v in [0, 3, -7, 2**62, 2**63 - 1]:
        want = getattr(torch.tensor(a), op)(v)
        got = getattr(lucid.tensor(a), op)(v)
        assert got.dtype.name == str(want.dtype).split(".")[1], (op, v)
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{op} {v}")


def test_int64_counter_add_makes_no_scalar_tensor(monkeypatch):
    t = lucid.zeros(2, dtype=lucid.int64)  # (NumPy gives 0-d results as scalars)
    be = type(t._device._backend)

    def refuse(*args, **kwargs):
        raise AssertionError("a 0-d tensor was made for the number")

    monkeypatch.setattr(be, "asarray", refuse)
    t.add_(1)
    t += 2
    t.sub_(1)
    t.mul_(3)
    assert t.tolist() == [6, 6] and t.dtype is lucid.int64
    with pytest.raises(AssertionError):  # alpha and the other integer dtypes: general op
        t.add_(1, alpha=2)
