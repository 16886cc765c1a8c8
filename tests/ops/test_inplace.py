"""In-place ops: version counters, leaf checks, dtype rules and graph rebasing (vs torch)."""

import numpy as np
import pytest
import torch

import lucid


def test_inplace_bumps_version_and_shares_it_with_views():
    x = lucid.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x.transpose(0, 1)
    assert x._version == v._version == 0
    x.add_(1)
    assert x._version == v._version == 1
    np.testing.assert_array_equal(v.numpy(), [[2, 4], [3, 5]])


def test_inplace_on_leaf_requiring_grad_raises():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(lucid.errors.AutogradError, match="leaf"):
        x.mul_(2)
    with lucid.no_grad():
        x.mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), [2, 4])


def test_float_result_into_int_tensor_raises():
    x = lucid.tensor([1, 2, 3])
    with pytest.raises(lucid.errors.DTypeError, match="mul_.*float32.*int64"):
        x.mul_(1.5)
    x.add_(2)
    assert x.dtype is lucid.int64 and x.tolist() == [3, 4, 5]


def test_inplace_rebases_history_like_torch():
    data = np.array([0.5, -1.0, 2.0])
    lx = lucid.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    for x in (lx, tx):
        y = x * 2
        y.mul_(x)  # y = 2x * x
        y.add_(y.exp() if isinstance(y, lucid.Tensor) else y.exp())
        y.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_inplace_through_view_updates_base_gradient():
    data = np.arange(6.0).reshape(2, 3) / 5
    grads = []
    for lib in (lucid, torch):
        x = lib.tensor(data, requires_grad=True)
        b = x * 1.0
        v = b.transpose(0, 1)
        v.mul_(3.0)
        (b * b).sum().backward()
        grads.append(x.grad.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_saved_tensor_modified_in_place_raises():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    z = (y * y).sum()
    y.add_(1)
    with pytest.raises(lucid.errors.VersionMismatchError, match="MulBackward.*version 1"):
        z.backward()


def test_copy_broadcasts_casts_and_routes_gradient_to_source():
    src = lucid.tensor([1.0, 2.0, 3.0], dtype=lucid.float64, requires_grad=True)
    dst = lucid.tensor(np.zeros((2, 3), np.float32))
    dst.copy_(src)
    assert dst.dtype is lucid.float32 and dst.requires_grad
    (dst * dst).sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), 4 * np.array([1.0, 2.0, 3.0]))
    assert src.grad.dtype is lucid.float64
