"""Tensor-level surface against PyTorch: the legacy constructor, device methods, in-place
view ops, as_strided / empty_strided, storages and shared memory, DLPack export rules, and
what the top-level namespace keeps internal."""

import os

import numpy as np
import pytest
import torch

import lucid


@pytest.mark.parametrize(
    "args", [(2, 3), ([1, 2],), ((2,),), (), (np.array([1, 2]),), ([[1.5], [2.5]],)], ids=repr
)
def test_legacy_constructor(args):
    t, l = torch.Tensor(*args), lucid.Tensor(*args)
    assert tuple(l.shape) == tuple(t.shape) and l.dtype is lucid.float32
    if args and not isinstance(args[0], int):
        np.testing.assert_array_equal(l.numpy(), t.numpy())


def test_legacy_constructor_sizes_and_errors():
    assert tuple(lucid.Tensor(lucid.Size([2, 3])).shape) == (2, 3)
    assert lucid.Tensor([1, 2], dtype=lucid.float64).dtype is lucid.float64
    with pytest.raises(TypeError, match="Tensor"):
        lucid.Tensor(2.5)
    with pytest.raises(TypeError):
        torch.Tensor(2.5)


def test_device_methods():
    x = lucid.ones(2)
    assert x.cpu() is x and x.get_device() == torch.ones(2).get_device() == -1
    assert x.pin_memory() is x and not x.is_pinned()
    with pytest.raises(RuntimeError, match="cuda.*CuPy"):
        x.cuda()


@pytest.mark.parametrize(
    "name, args, shape",
    [
        ("squeeze_", (), (3, 1, 2)),
        ("squeeze_", (1,), (3, 1, 2)),
        ("unsqueeze_", (-1,), (3, 2)),
        ("transpose_", (0, 2), (2, 3, 4)),
        ("t_", (), (2, 3)),
        ("t_", (), (3,)),
    ],
)
def test_inplace_view_ops(name, args, shape):
    data = np.random.default_rng(0).standard_normal(shape)
    res = []
    for lib in (torch, lucid):
        a = lib.tensor(data, requires_grad=True)
        x = a * 1
        out = getattr(x, name)(*args)
        assert out is x
        w = lib.tensor(np.arange(x.numel(), dtype=np.float64).reshape(tuple(x.shape)))
        (x * w).sum().backward()
        res.append((tuple(x.shape), x.stride(), x.detach().numpy().copy(), a.grad.numpy()))
    (ts, tst, tv, tg), (ls, lst, lv, lg) = res
    assert ls == ts and lst == tst
    np.testing.assert_array_equal(lv, tv)
    np.testing.assert_array_equal(lg, tg)


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_inplace_view_op_on_leaf_refused(lib):
    with pytest.raises(RuntimeError, match="leaf Variable"):
        lib.ones(2, 1, requires_grad=True).squeeze_()


@pytest.mark.parametrize(
    "size, stride, offset",
    [((2, 2), (1, 2), 1), ((3,), (2,), 0), ((2, 3), (0, 1), 2), ((0, 3), (3, 1), 0)],
)
def test_as_strided_matches_torch(size, stride, offset):
    data = np.arange(8.0)
    res = []
    for lib in (torch, lucid):
        a = lib.tensor(data, requires_grad=True)
        v = (a * 1).as_strided(size, stride, offset)
        w = lib.tensor(np.arange(1.0, 1.0 + np.prod(size)).reshape(size))
        (v * w).sum().backward()
        res.append((v.detach().numpy().copy(), v.stride(), a.grad.numpy()))
    for (tv, ts, tg), (lv, ls, lg) in [res]:
        np.testing.assert_array_equal(lv, tv)
        assert ls == ts
        np.testing.assert_array_equal(lg, tg)


def test_as_strided_is_a_view_and_checks_bounds():
    b = lucid.arange(6.0) * 1
    b.as_strided((3,), (2,), 0).mul_(10)
    assert b.tolist() == [0.0, 1.0, 20.0, 3.0, 40.0, 5.0]
    with pytest.raises(RuntimeError):
        torch.arange(6.0).as_strided((4,), (2,), 0)
    with pytest.raises(lucid.errors.ShapeError, match="as_strided: .*out of bounds"):
        lucid.arange(6.0).as_strided((4,), (2,), 0)
    with pytest.raises(lucid.errors.ShapeError, match="as_strided: mismatch"):
        lucid.arange(6.0).as_strided((2, 2), (1,))


def test_empty_strided():
    for lib in (torch, lucid):
        e = lib.empty_strided((2, 3), (1, 2))
        assert tuple(e.shape) == (2, 3) and e.stride() == (1, 2)
        assert e.untyped_storage().nbytes() == 24
    assert lucid.empty_strided((2,), (1,), dtype=lucid.float64).dtype is lucid.float64


def test_untyped_storage_is_shared_by_views():
    for lib in (torch, lucid):
        x = lib.ones(4)
        s = x.untyped_storage()
        assert s.nbytes() == 16 and s.data_ptr() == x.data_ptr()
        assert x[2:].untyped_storage().data_ptr() == s.data_ptr()
        assert x[2:].data_ptr() == s.data_ptr() + 8
        assert lib.ones(4).untyped_storage().data_ptr() != s.data_ptr()


def test_share_memory_is_seen_by_a_forked_child():
    x = lucid.ones(3)
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared() and x.tolist() == [1.0, 1.0, 1.0]
    pid = os.fork()
    if pid == 0:
        x.fill_(7.0)
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [7.0, 7.0, 7.0]


@pytest.mark.parametrize("lib", [torch, lucid], ids=["torch", "lucid"])
def test_dlpack_export_of_requires_grad_refused(lib):
    w = lib.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match="require"):
        w.__dlpack__()
    assert np.from_dlpack(w.detach()).tolist() == [1.0, 1.0]


def test_internals_stay_under_ops():
    for name in ("apply_inplace", "registry", "OpSchema", "AmpPolicy", "move", "backend"):
        assert not hasattr(lucid, name), name
    assert lucid.ops.core.registry.get_op("exp") is not None and callable(lucid.ops.move)


def test_from_dlpack_of_a_raw_capsule_shares_memory():
    src = torch.arange(3.0)
    t = lucid.from_dlpack(torch.utils.dlpack.to_dlpack(src))
    assert t.tolist() == [0.0, 1.0, 2.0] and t.dtype is lucid.float32
    src[0] = 9.0
    assert t.tolist()[0] == 9.0


def test_array_operands_keep_the_op_params():
    t = lucid.tensor([5.0, 7.0])
    assert (t // np.array([2.0, 2.0])).tolist() == [2.0, 3.0]
    assert lucid.div(t, np.array([2.0, 4.0]), rounding_mode="trunc").tolist() == [2.0, 1.0]
    assert (np.array([10.0, 14.0]) // t).tolist() == [2.0, 2.0]
