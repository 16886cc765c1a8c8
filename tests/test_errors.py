"""The error hierarchy, and one test per required user error: the Lucid error type, and a
message naming the op and what it got (shapes, dtypes, devices)."""

import numpy as np
import pytest

import lucid
from lucid import errors
from lucid.errors import (AutogradError, DeviceMismatchError, DimError, DTypeError, ShapeError,
                          VersionMismatchError)


@pytest.mark.parametrize("err, bases", [
    (errors.LucidError, (Exception,)),
    (errors.ShapeError, (errors.LucidError, ValueError)),
    (errors.DimError, (errors.LucidError, IndexError)),
    (errors.DTypeError, (errors.LucidError, TypeError)),
    (errors.DeviceError, (errors.LucidError, RuntimeError)),
    (errors.DeviceMismatchError, (errors.DeviceError, errors.LucidError, RuntimeError)),
    (errors.IndexingError, (errors.LucidError, IndexError)),
    (errors.AutogradError, (errors.LucidError, RuntimeError)),
    (errors.VersionMismatchError, (errors.AutogradError, errors.LucidError, RuntimeError)),
    (errors.DeterminismError, (errors.LucidError, RuntimeError)),
    (errors.GradcheckError, (errors.LucidError, RuntimeError)),
])
def test_hierarchy(err, bases):
    for base in bases:
        assert issubclass(err, base)
    with pytest.raises(bases[-1]):
        raise err("x")


def test_every_public_error_is_a_lucid_error():
    for name in dir(errors):
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and \
                obj.__module__ == errors.__name__:
            assert issubclass(obj, errors.LucidError)


def _ones(*shape):
    return lucid.tensor(np.ones(shape))


@pytest.mark.parametrize("call", [lambda a, b: lucid.add(a, b), lambda a, b: a + b,
                                  lambda a, b: a * b])
def test_incompatible_broadcast(call):
    with pytest.raises(ShapeError, match=r"^(add|mul): shapes \(2, 3\), \(4,\) cannot be "
                                         r"broadcast together$"):
        call(_ones(2, 3), _ones(4))


def test_matmul_inner_dim_mismatch():
    with pytest.raises(ShapeError, match=r"^matmul: shapes \(3, 4\) and \(5, 6\) cannot be "
                                         r"multiplied \(4 != 5\)$"):
        lucid.matmul(_ones(3, 4), _ones(5, 6))
    with pytest.raises(ShapeError, match="matmul"):
        _ones(3, 4) @ _ones(5, 6)


@pytest.mark.parametrize("dim", [5, -3])
def test_dim_out_of_range(dim):
    with pytest.raises(DimError, match=rf"^sum: dimension out of range \(expected to be in "
                                       rf"range of \[-2, 1\], but got {dim}\)$"):
        lucid.sum(_ones(2, 3), dim=dim)


def test_requires_grad_on_int_tensor():
    with pytest.raises(DTypeError, match="requires_grad: only floating point tensors can "
                                         "require gradients, got dtype lucid.int64"):
        lucid.tensor([1, 2], requires_grad=True)


def test_backward_on_non_scalar_without_grad():
    y = lucid.tensor([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(AutogradError, match=r"^backward: grad can be implicitly created only "
                                            r"for scalar outputs, got output 0 of shape "
                                            r"\(2,\)$"):
        y.backward()


def test_second_backward_through_freed_graph():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward()
    with pytest.raises(AutogradError, match="^ExpBackward: trying to backward through the "
                                            "graph a second time"):
        y.backward()


def test_in_place_change_of_saved_tensor():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = (h * h).sum()
    h.mul_(3)
    with pytest.raises(VersionMismatchError, match=r"^MulBackward: .*\(input 0 of shape "
                                                   r"\(2,\)\) has been modified by an "
                                                   r"in-place operation: it is at version 1, "
                                                   r"expected version 0"):
        y.backward()


def test_in_place_op_on_leaf_requiring_grad():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(AutogradError, match="^add_: a leaf Variable that requires grad is "
                                            "being used in an in-place operation"):
        x.add_(1)


@pytest.mark.parametrize("call", [lambda x: x.mul_(1.5),
                                  lambda x: x.add_(lucid.tensor([0.5, 1.0]))])
def test_float_result_written_in_place_into_int_tensor(call):
    x = lucid.tensor([1, 2])
    with pytest.raises(DTypeError, match=r"^(mul|add)_: result type float32 can't be cast to "
                                         r"the desired output type int64$"):
        call(x)
    assert x.tolist() == [1, 2]


@pytest.fixture
def on_fake_cuda(monkeypatch):
    """A CPU tensor whose device claims to be cuda:0 (its data stays a NumPy array)."""
    t = lucid.tensor([1.0, 2.0])
    monkeypatch.setattr(t, "_device", lucid.device("cuda"))
    return t


@pytest.mark.parametrize("call", [
    lambda a, b: a + b, lambda a, b: lucid.mul(a, b), lambda a, b: lucid.matmul(a, b),
    lambda a, b: lucid.cat([a, b]), lambda a, b: (a * 2) + b,
])
def test_mixing_devices(on_fake_cuda, call):
    with pytest.raises(DeviceMismatchError, match=r"^\w+: expected all tensors to be on the "
                                                  r"same device, but found tensors on cpu "
                                                  r"and cuda:0$"):
        call(lucid.tensor([1.0, 2.0]), on_fake_cuda)
