"""The view and in-place cases of PyTorch's semantics, each run in torch and Lucid.

A view used after its base (or another view of it) changed in place takes the base's new
history; ``.data`` and ``.detach()`` writes are invisible to autograd; ``copy_``/``fill_``
keep the overwritten tensor's history; partly overlapping in-place writes are refused.
"""

import numpy as np
import pytest
import torch

import lucid


def _view_after_base_mul(lib):
    a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    base = a.clone()
    v = base[:2]
    base.mul_(10)
    (v * v).sum().backward()
    return a.grad


def _view_after_base_relu(lib):
    x = lib.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
    h = x * 1
    hv = h[:, :1]
    h.relu_()
    hv.sum().backward()
    return x.grad


def _row_after_setitem(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    out = lib.zeros(2, 2)
    row = out[0]
    out[0] = w * 5
    assert row.requires_grad
    (row * row).sum().backward()
    return w.grad


def _view_after_base_add(lib):
    b = lib.tensor([1.0, 2.0], requires_grad=True)
    base = lib.ones(2, 2) * 1
    v = base[0]
    base.add_(b)
    (v * 3).sum().backward()
    return b.grad


def _setitem_on_view(lib):
    t0 = lib.tensor([1.0, 2.0], requires_grad=True)
    t4 = (t0 * -2.0).unflatten(0, (-1, 2))
    t4[:, 0:] = 1.75
    (t4 * 0.3).sum().backward()
    return t0.grad


def _unbind_is_a_view(lib):
    b = lib.zeros(3)
    b.unbind(0)[1].fill_(7.0)
    return b


def _iteration_gives_views(lib):
    b = lib.zeros(3)
    list(b)[2].fill_(5.0)
    return b


def _scalar_mul_div_save_nothing_of_x(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = x * 3.0 + x / 4.0
    x.add_(1)
    y.sum().backward()
    return a.grad


def _copy_keeps_history(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    r = (a * 2).copy_(lib.tensor([5.0, 6.0]))
    assert r.requires_grad
    f = (a * 2).fill_(lib.tensor(3.0))
    assert f.requires_grad
    (r * a + f).sum().backward()
    return a.grad


def _detach_of_view_write(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    v = b[:]
    v.detach().add_(v, alpha=0.5)
    b.sum().backward()
    return a.grad


def _data_has_own_version(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    y = w * w  # saves w
    d = w.data
    d.mul_(5)
    assert w._version == 0 and d._version == 1
    y.sum().backward()  # no version error: .data writes are invisible
    return w.grad


def _optimizer_style_updates(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    w.data -= 1
    w.detach().mul_(3)
    w.detach().copy_(w.detach() + 1)
    (w * w).sum().backward()
    with lib.no_grad():
        w -= 0.5 * w.grad
    return w.detach()


def _expand_same_shape_is_a_view(lib):
    t = lib.tensor([1.0, 2.0], requires_grad=True) * 1
    e = t.expand(-1)
    assert e is not t and not e.is_leaf
    return e


def _select_view(lib):
    s = lib.arange(6.0).reshape(2, 3)
    v = s.select(1, -1)
    v.fill_(9)
    return s


def _view_dtype_writes_through(lib):
    f = lib.tensor([1.0, 2.0])
    i = f.view(lib.int32)
    i[0] = 0
    return f


def _view_dtype_smaller(lib):
    f = lib.ones(2, 3)
    return f.view(lib.int16)


CASES = [
    _view_after_base_mul,
    _view_after_base_relu,
    _row_after_setitem,
    _view_after_base_add,
    _setitem_on_view,
    _unbind_is_a_view,
    _iteration_gives_views,
    _scalar_mul_div_save_nothing_of_x,
    _copy_keeps_history,
    _detach_of_view_write,
    _data_has_own_version,
    _optimizer_style_updates,
    _expand_same_shape_is_a_view,
    _select_view,
    _view_dtype_writes_through,
    _view_dtype_smaller,
]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.strip("_") for c in CASES])
def test_matches_torch(case):
    expect, got = case(torch), case(lucid)
    assert tuple(got.shape) == tuple(expect.shape)
    np.testing.assert_array_equal(got.detach().numpy(), expect.detach().numpy())


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_partial_overlap_is_refused(lib):
    b = lib.ones(3, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        b.add_(b.t())
    b.add_(b)  # the same elements in the same layout: fine
    b[:1].add_(b[2:])  # disjoint: fine
    assert float(b.sum()) == 24.0


def test_overlap_error_is_lucid():
    b = lucid.ones(2, 2)
    with pytest.raises(lucid.errors.MemoryOverlapError, match="add_"):
        b.add_(b.t())


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_inference_tensors_cannot_be_saved(lib):
    with lib.inference_mode():
        it = lib.ones(2)
    assert it.is_inference()
    p = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="[Ii]nference tensors cannot be saved"):
        p * it
    (it + p).sum().backward()  # add saves nothing: allowed
    assert p.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="nference"):
        it.add_(1)


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_view_dtype_layout_errors(lib):
    with pytest.raises(RuntimeError if lib is torch else lucid.errors.ShapeError):
        lib.ones(3).view(lib.int64)  # 3 float32 != whole int64s
    with pytest.raises(RuntimeError if lib is torch else lucid.errors.ShapeError):
        lib.ones(2, 2).t().view(lib.int16)  # last dim not contiguous
    with pytest.raises(RuntimeError if lib is torch else lucid.errors.ShapeError):
        lib.tensor(1.0).view(lib.int16)  # 0-d, other element size


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_views_made_under_no_grad(lib):
    w = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        v = w[:2]
    (v * 2).sum()  # reading it is fine
    with lib.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v * 2  # its base changed: ambiguous, refused
    b = lib.ones(3, requires_grad=True) * 1
    with lib.no_grad():
        u = b[:2]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        u.mul_(2)
    with lib.no_grad():
        u.mul_(2)  # both inside no_grad: allowed
    assert b.tolist() == [2.0, 2.0, 1.0]
