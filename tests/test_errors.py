"""The error hierarchy, and one test per required user error: the Lucid error type, and a
message naming the op and what it got (shapes, dtypes, devices)."""

import numpy as np
import pytest

import lucid
from lucid import errors
from lucid.errors import (
    AutogradError,
    DeviceMismatchError,
    DimError,
    DTypeError,
    ShapeError,
    VersionMismatchError,
)


@pytest.mark.parametrize(
    "err, bases",
    [
        (errors.LucidError, (Exception,)),
        # PyTorch raises RuntimeError in these situations: Lucid's errors are both
        (errors.ShapeError, (errors.LucidError, ValueError, RuntimeError)),
        (errors.DimError, (errors.LucidError, IndexError, RuntimeError)),
        (errors.DTypeError, (errors.LucidError, TypeError, NotImplementedError, RuntimeError)),
        (errors.IndexingError, (errors.LucidError, IndexError, RuntimeError)),
        (errors.ArgumentError, (errors.LucidError, ValueError, RuntimeError)),
        (errors.ValueOverflowError, (errors.DTypeError, OverflowError, ValueError, RuntimeError)),
        (errors.ArgumentTypeError, (errors.LucidError, TypeError)),
        (errors.DeviceError, (errors.LucidError, RuntimeError)),
        (errors.DeviceMismatchError, (errors.DeviceError, errors.LucidError, RuntimeError)),
        (errors.IndexingError, (errors.LucidError, IndexError)),
        (errors.AutogradError, (errors.LucidError, RuntimeError)),
        (errors.VersionMismatchError, (errors.AutogradError, errors.LucidError, RuntimeError)),
        (errors.DeterminismError, (errors.LucidError, RuntimeError)),
        (errors.GradcheckError, (errors.LucidError, RuntimeError)),
    ],
)
def test_hierarchy(err, bases):
    for base in bases:
        assert issubclass(err, base)
    with pytest.raises(bases[-1]):
        raise err("x")


def test_every_public_error_is_a_lucid_error():
    for name in dir(errors):
        obj = getattr(errors, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, Exception)
            and obj.__module__ == errors.__name__
        ):
            assert issubclass(obj, errors.LucidError)


def _ones(*shape):
    return lucid.tensor(np.ones(shape))


@pytest.mark.parametrize(
    "call", [lambda a, b: lucid.add(a, b), lambda a, b: a + b, lambda a, b: a * b]
)
def test_incompatible_broadcast(call):
    with pytest.raises(
        ShapeError,
        match=r"^(add|mul): shapes \(2, 3\), \(4,\) cannot be "
        r"broadcast together$",
    ):
        call(_ones(2, 3), _ones(4))


def test_matmul_inner_dim_mismatch():
    with pytest.raises(
        ShapeError,
        match=r"^matmul: shapes \(3, 4\) and \(5, 6\) cannot be "
        r"multiplied \(4 != 5\)$",
    ):
        lucid.matmul(_ones(3, 4), _ones(5, 6))
    with pytest.raises(ShapeError, match="matmul"):
        _ones(3, 4) @ _ones(5, 6)


@pytest.mark.parametrize("dim", [5, -3])
def test_dim_out_of_range(dim):
    with pytest.raises(
        DimError,
        match=rf"^sum: dimension out of range \(expected to be in "
        rf"range of \[-2, 1\], but got {dim}\)$",
    ):
        lucid.sum(_ones(2, 3), dim=dim)


def test_requires_grad_on_int_tensor():
    with pytest.raises(
        DTypeError,
        match="requires_grad: only floating point tensors can "
        "require gradients, got dtype lucid.int64",
    ):
        lucid.tensor([1, 2], requires_grad=True)


def test_backward_on_non_scalar_without_grad():
    y = lucid.tensor([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(
        AutogradError,
        match=r"^backward: grad can be implicitly created only "
        r"for scalar outputs, got output 0 of shape "
        r"\(2,\)$",
    ):
        y.backward()


def test_second_backward_through_freed_graph():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward()
    with pytest.raises(
        AutogradError, match="^ExpBackward: trying to backward through the graph a second time"
    ):
        y.backward()


def test_in_place_change_of_saved_tensor():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = (h * h).sum()
    h.mul_(3)
    with pytest.raises(
        VersionMismatchError,
        match=r"^MulBackward: .*\(input 0 of shape "
        r"\(2,\)\) has been modified by an "
        r"in-place operation: it is at version 1, "
        r"expected version 0",
    ):
        y.backward()


def test_in_place_op_on_leaf_requiring_grad():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        AutogradError,
        match="^add_: a leaf Variable that requires grad is being used in an in-place operation",
    ):
        x.add_(1)


@pytest.mark.parametrize(
    "call", [lambda x: x.mul_(1.5), lambda x: x.add_(lucid.tensor([0.5, 1.0]))]
)
def test_float_result_written_in_place_into_int_tensor(call):
    x = lucid.tensor([1, 2])
    with pytest.raises(
        DTypeError,
        match=r"^(mul|add)_: result type float32 can't be cast to "
        r"the desired output type int64$",
    ):
        call(x)
    assert x.tolist() == [1, 2]


@pytest.fixture
def on_fake_cuda(monkeypatch):
    """A CPU tensor whose device claims to be cuda:0 (its data stays a NumPy array)."""
    t = lucid.tensor([1.0, 2.0])
    monkeypatch.setattr(t, "_device", lucid.device("cuda"))
    return t


@pytest.mark.parametrize(
    "call",
    [
        lambda a, b: a + b,
        lambda a, b: lucid.mul(a, b),
        lambda a, b: lucid.matmul(a, b),
        lambda a, b: lucid.cat([a, b]),
        lambda a, b: (a * 2) + b,
    ],
)
def test_mixing_devices(on_fake_cuda, call):
    with pytest.raises(
        DeviceMismatchError,
        match=r"^\w+: expected all tensors to be on the "
        r"same device, but found tensors on cpu "
        r"and cuda:0$",
    ):
        call(lucid.tensor([1.0, 2.0]), on_fake_cuda)


def test_argument_type_error_is_not_a_runtime_error():
    """PyTorch's argument parser raises TypeError only: ``except RuntimeError`` in PyTorch
    code does not catch it, nor Lucid's."""
    assert not issubclass(errors.ArgumentTypeError, RuntimeError)
    with pytest.raises(errors.ArgumentTypeError, match=r"^sum\(\): argument 'dim' must be"):
        lucid.ones(3).sum(1.0)


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: lucid.tensor(2**63),
            r"^tensor: overflow: the Python int 9223372036854775808 "
            r"does not fit int64",
        ),
        (lambda: lucid.tensor(-(2**63) - 1), r"does not fit int64"),
        (
            lambda: lucid.tensor([2**64 + 5]),
            r"^tensor: overflow: the Python int "
            r"18446744073709551621",
        ),
        (lambda: lucid.tensor([[1, 2], [3, 2**70]]), r"overflow"),
        (
            lambda: lucid.tensor([300], dtype=lucid.uint8),
            r"^tensor: value 300 cannot be converted "
            r"to type uint8 without overflow",
        ),
        (lambda: lucid.tensor([-256], dtype=lucid.uint8), r"value -256 .*uint8"),
        (lambda: lucid.tensor([-0.5], dtype=lucid.uint8), r"value -0.5 .*uint8"),
        (lambda: lucid.tensor([128], dtype=lucid.int8), r"value 128 .*int8"),
        (lambda: lucid.tensor([1e10], dtype=lucid.int32), r"value 10000000000.0 .*int32"),
        (lambda: lucid.tensor([float("inf")], dtype=lucid.int64), r"value inf .*int64"),
    ],
)
def test_tensor_from_python_numbers_that_overflow(call, msg):
    with pytest.raises(errors.ValueOverflowError, match=msg):
        call()


def test_tensor_from_python_numbers_that_fit_or_wrap_as_in_pytorch():
    import torch

    for data, dt in (
        ([-1, 255], "uint8"),
        ([-255], "uint8"),
        ([1.5, 2.9], "uint8"),
        ([-128, 127], "int8"),
        ([2**63 - 1, -(2**63)], "int64"),
        ([True, 2], "int16"),
        ([2**63], "float32"),
        ([2**64 + 5], "float64"),
        ([1e40], "float32"),
        ([300], "bool"),
    ):
        got = lucid.tensor(data, dtype=getattr(lucid, dt))
        want = torch.tensor(data, dtype=getattr(torch, dt))
        assert got.tolist() == want.tolist(), (data, dt)
    assert lucid.tensor(np.array([300]), dtype=lucid.uint8).tolist() == [44]  # arrays cast


@pytest.mark.parametrize(
    "call",
    [
        lambda d: lucid.tensor([1.0], dtype=d),
        lambda d: lucid.as_tensor([1.0], dtype=d),
        lambda d: lucid.zeros(2, dtype=d),
        lambda d: lucid.ones(2, dtype=d),
        lambda d: lucid.full((2,), 1, dtype=d),
        lambda d: lucid.arange(3, dtype=d),
        lambda d: lucid.linspace(0, 1, 3, dtype=d),
        lambda d: lucid.eye(2, dtype=d),
        lambda d: lucid.zeros_like(lucid.ones(2), dtype=d),
        lambda d: lucid.ones(2).new_zeros(2, dtype=d),
        lambda d: lucid.ones(2).sum(dtype=d),
        lambda d: lucid.ones(2).cumsum(0, dtype=d),
        lambda d: lucid.ones(2).norm(dtype=d),
    ],
)
@pytest.mark.parametrize("bad", ["float32", np.float32, np.dtype("float64"), np.int64])
def test_dtype_argument_refuses_strings_and_numpy_types(call, bad):
    with pytest.raises(TypeError, match=r"argument 'dtype' must be lucid.dtype, not"):
        call(bad)
    assert call(lucid.float64).dtype is lucid.float64
    assert call(float).dtype is lucid.float64  # dtype=float means float64


def test_from_numpy_of_a_read_only_array_warns_and_refuses_writes():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = lucid.from_numpy(a)
    assert np.shares_memory(t.numpy(), a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match=r"^add_: .*read-only"):
        t.add_(1)
    with pytest.raises(RuntimeError, match="read-only"):
        t[0] = 5.0
    assert a.tolist() == [0.0, 1.0, 2.0]
