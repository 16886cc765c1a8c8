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


def _counting_copies(monkeypatch):
    """A list that grows by one per backend ``copy`` of the CPU backend."""
    be = lucid.device("cpu")._backend
    calls = []
    real = be.copy

    def copy(a):
        calls.append(a.shape)
        return real(a)

    monkeypatch.setattr(be, "copy", copy)
    return calls


@pytest.mark.parametrize(
    "name, args, copies",
    [
        ("relu_", (), 0),  # saves its output: the old value is never read again
        ("add_", (0.5,), 0),  # saves nothing
        ("exp_", (), 0),  # saves its output
        ("sin_", (), 1),  # reads the old value in its backward: one copy
        ("mul_", ("other",), 1),
    ],
)
def test_recorded_inplace_copies_the_old_value_only_where_saved(monkeypatch, name, args, copies):
    data = np.array([[0.5, -1.0], [2.0, -0.25]])
    other = np.array([[1.5, 2.0], [-3.0, 0.5]])
    grads = []
    for lib in (lucid, torch):
        w = lib.tensor(data, requires_grad=True)
        o = lib.tensor(other, requires_grad=True)
        h = w * 1.0
        calls = _counting_copies(monkeypatch) if lib is lucid else []
        out = getattr(h, name)(*[o if a == "other" else a for a in args])
        if lib is lucid:
            assert len(calls) == copies and out is h
            monkeypatch.undo()
        (out * lib.tensor(other)).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in (w, o)])
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    assert (grads[0][1] is None) == (grads[1][1] is None) == ("other" not in args)
    if "other" in args:
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)


def test_alias_safe_function_saving_a_view_of_the_old_value_copies_it():
    # a view of the old value shares its marked version counter: the node that saves the
    # view saves a copy, so the backward reads the value before the write
    @lucid.ops.core.inplace.alias_safe
    def scaled_t(x, y):
        return x.t() * y

    data = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = lucid.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    w = lucid.tensor(data, requires_grad=True)
    h = w * 1.0
    lucid.ops.apply_inplace(scaled_t, h, y)
    np.testing.assert_array_equal(h.detach().numpy(), data.T * y.detach().numpy())
    h.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), data.T)  # the old value, transposed
    np.testing.assert_array_equal(w.grad.numpy(), y.detach().numpy().T)


def test_alias_safe_function_returning_a_view_of_the_old_value_writes_its_values():
    # the result is a transposed alias of the storage being written: it is copied first
    @lucid.ops.core.inplace.alias_safe
    def transposed(x):
        return x.t()

    data = np.arange(9.0).reshape(3, 3)
    w = lucid.tensor(data, requires_grad=True)
    h = w * 1.0
    lucid.ops.apply_inplace(transposed, h)
    np.testing.assert_array_equal(h.detach().numpy(), data.T)
    (h * lucid.tensor(data)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), data.T)


def test_inplace_under_no_grad_and_without_grad_inputs_records_nothing():
    c = lucid.tensor(0, dtype=lucid.int64)
    with lucid.no_grad():
        c.add_(1)
    x = lucid.tensor([1.0, -2.0])
    x.relu_()
    assert c.item() == 1 and c._version == 1 and x.grad_fn is None
    assert x.tolist() == [1.0, 0.0]


def test_inplace_operand_passed_by_keyword_records_its_gradient():
    grads = []
    for lib in (lucid, torch):
        y = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = lib.zeros(3)
        h.add_(other=y, alpha=2.0)
        (h * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append(y.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
