"""DLPack with bfloat16, both ways, on the CPU: Lucid <-> PyTorch without copies.

NumPy's DLPack has no bfloat16, so Lucid reads and writes these capsules itself
(``lucid.backend.dlpack``); the other dtypes still go through NumPy's DLPack.
"""

import gc
import weakref

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, ExportError, LucidError

BF16 = lucid.bfloat16


def _bf16(rows, cols):
    return lucid.tensor(
        np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) * 0.5, dtype=BF16
    )


def _same_memory(lt, tt):
    """A Lucid tensor and a torch tensor over the same first element and layout."""
    assert lt.data_ptr() == tt.data_ptr()
    assert tuple(lt.shape) == tuple(tt.shape)
    assert tuple(lt.stride()) == tuple(tt.stride())


def _values(t):
    """Values as float32 lists (either library's tensor)."""
    return t.float().tolist()


# -- Lucid bfloat16 -> torch ---------------------------------------------------------------


def test_lucid_bf16_to_torch_shares_memory_both_ways():
    t = _bf16(2, 3)
    tt = torch.from_dlpack(t)
    assert tt.dtype == torch.bfloat16 and tt.device.type == "cpu"
    assert _values(tt) == _values(t)
    _same_memory(t, tt)
    tt[0, 1] = 7.5  # torch writes, Lucid sees it
    assert t[0, 1].item() == 7.5
    t[1, 2] = -3.0  # Lucid writes, torch sees it
    assert tt[1, 2].item() == -3.0


@pytest.mark.parametrize("view", ["transpose", "slice_step", "offset_slice", "expand"])
def test_lucid_bf16_views_keep_strides_in_torch(view):
    base = _bf16(4, 6)
    t = {
        "transpose": lambda b: b.T,
        "slice_step": lambda b: b[:, ::2],
        "offset_slice": lambda b: b[1:3, 2:5],
        "expand": lambda b: b[:1].expand(3, 6),
    }[view](base)
    tt = torch.from_dlpack(t)
    assert _values(tt) == _values(t)
    _same_memory(t, tt)
    if view != "expand":
        tt[0, 0] = 100.0
        assert t[0, 0].item() == 100.0


def test_lucid_bf16_zero_dim_and_empty_to_torch():
    s = lucid.tensor(2.5, dtype=BF16)
    ts = torch.from_dlpack(s)
    assert ts.shape == () and ts.dtype == torch.bfloat16 and ts.item() == 2.5
    ts.fill_(4.0)
    assert s.item() == 4.0
    e = torch.from_dlpack(lucid.zeros(0, 3, dtype=BF16))
    assert e.shape == (0, 3) and e.dtype == torch.bfloat16


def test_lucid_bf16_legacy_and_versioned_capsules():
    t = _bf16(2, 2)
    legacy = t.__dlpack__()
    versioned = t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "versioned" not in repr(legacy)
    assert "dltensor_versioned" in repr(versioned)
    a, b = torch.from_dlpack(legacy), torch.from_dlpack(versioned)
    assert "used_dltensor" in repr(legacy) and "used_dltensor_versioned" in repr(versioned)
    _same_memory(t, a)
    _same_memory(t, b)
    assert a.dtype == b.dtype == torch.bfloat16


def test_lucid_bf16_copy_true_copies():
    t = _bf16(2, 2)
    tt = torch.from_dlpack(t, copy=True)
    assert _values(tt) == _values(t) and tt.data_ptr() != t.data_ptr()
    tt[0, 0] = 9.0
    assert t[0, 0].item() == 0.0


def test_bf16_export_refusals_name_the_op():
    t = _bf16(1, 2)
    with pytest.raises(ExportError, match=r"^__dlpack__: .*require"):
        lucid.ones(2, dtype=BF16, requires_grad=True).__dlpack__()
    with pytest.raises(ExportError, match=r"^__dlpack__: .*stream"):
        t.__dlpack__(stream=1)
    with pytest.raises(ExportError, match=r"^__dlpack__: .*device"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError):
        t.__dlpack__(bogus=1)  # unknown keywords: a producer's TypeError
    assert torch.from_dlpack(t.__dlpack__(dl_device=(1, 0))).dtype == torch.bfloat16


def test_read_only_bf16_needs_a_versioned_capsule():
    a = lucid.ones(3, dtype=BF16).numpy().copy()
    a.flags.writeable = False
    with pytest.warns(UserWarning):
        t = lucid.from_numpy(a)
    with pytest.raises(ExportError, match=r"^__dlpack__: .*readonly"):
        t.__dlpack__()  # the legacy struct cannot say read-only
    back = lucid.from_dlpack(t)  # versioned, READ_ONLY flag set
    assert back.tolist() == [1.0, 1.0, 1.0] and not back.numpy().flags.writeable
    assert back.data_ptr() == t.data_ptr()


def test_numpy_refusing_a_bf16_capsule_keeps_its_own_error():
    """The capsule's destructor is C code, so a consumer that rejects the capsule keeps
    its error (a Python destructor would turn it into a SystemError)."""
    t = _bf16(1, 2)
    try:
        got = np.from_dlpack(t)
    except Exception as e:  # NumPy without bfloat16 DLPack support
        assert not isinstance(e, SystemError), e
    else:
        assert got.dtype.itemsize == 2
    gc.collect()
    assert t.tolist() == [[0.0, 0.5]]


# -- torch bfloat16 -> Lucid ---------------------------------------------------------------


def test_torch_bf16_to_lucid_shares_memory_both_ways():
    src = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(torch.bfloat16)
    t = lucid.from_dlpack(src)
    assert t.dtype is BF16 and t.device == lucid.device("cpu")
    assert _values(t) == _values(src)
    _same_memory(t, src)
    src[0, 0] = 5.5
    assert t[0, 0].item() == 5.5
    t[1, 1] = -2.0
    assert src[1, 1].item() == -2.0


@pytest.mark.parametrize("view", ["t", "step", "offset", "expand"])
def test_torch_bf16_views_to_lucid_keep_strides(view):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6).to(torch.bfloat16)
    src = {
        "t": lambda b: b.t(),
        "step": lambda b: b[:, ::3],
        "offset": lambda b: b[2:, 1:4],
        "expand": lambda b: b[:1].expand(5, 6),
    }[view](base)
    t = lucid.from_dlpack(src)
    assert _values(t) == _values(src)
    _same_memory(t, src)


def test_torch_bf16_zero_dim_and_empty_to_lucid():
    s = torch.tensor(1.25, dtype=torch.bfloat16)
    t = lucid.from_dlpack(s)
    assert t.shape == () and t.dtype is BF16 and t.item() == 1.25
    s.fill_(3.0)
    assert t.item() == 3.0
    e = lucid.from_dlpack(torch.empty(0, 4, dtype=torch.bfloat16))
    assert e.shape == (0, 4) and e.dtype is BF16


def test_raw_torch_bf16_capsule_to_lucid():
    src = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
    cap = torch.utils.dlpack.to_dlpack(src)
    t = lucid.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    assert t.dtype is BF16 and t.tolist() == [1.0, 2.0, 3.0]
    _same_memory(t, src)
    src[2] = 8.0
    assert t[2].item() == 8.0


def test_round_trip_lucid_torch_lucid_is_the_same_memory():
    t = _bf16(3, 2).T
    back = lucid.from_dlpack(torch.from_dlpack(t))
    assert back.dtype is BF16 and back.tolist() == t.tolist()
    assert back.data_ptr() == t.data_ptr() and back.stride() == t.stride()
    back[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    direct = lucid.from_dlpack(t)  # Lucid to Lucid
    assert direct.data_ptr() == t.data_ptr() and direct.tolist() == t.tolist()


def test_negative_strides_lucid_to_lucid():
    """(PyTorch refuses negative strides, so only Lucid's own importer reads them here.)"""
    base = _bf16(3, 4)
    flipped = lucid.from_numpy(base.numpy()[::-1, ::-2])
    back = lucid.from_dlpack(flipped)
    assert back.tolist() == flipped.tolist() and back.stride() == flipped.stride()
    assert back.data_ptr() == flipped.data_ptr()
    back[0, 0] = 11.0
    assert base[2, 3].item() == 11.0


# -- the other dtypes still go through NumPy's DLPack ---------------------------------------


@pytest.mark.parametrize(
    "dt,tdt",
    [
        (lucid.float32, torch.float32),
        (lucid.int64, torch.int64),
        (lucid.float16, torch.float16),
        (lucid.bool, torch.bool),
    ],
)
def test_other_dtypes_both_ways(dt, tdt):
    t = lucid.tensor([[1, 0], [1, 1]], dtype=dt)
    tt = torch.from_dlpack(t)
    assert tt.dtype == tdt and tt.tolist() == t.tolist()
    _same_memory(t, tt)
    src = torch.tensor([[0, 1], [1, 0]], dtype=tdt).t()
    back = lucid.from_dlpack(src)
    assert back.dtype is dt and back.tolist() == src.tolist()
    _same_memory(back, src)
    raw = lucid.from_dlpack(torch.utils.dlpack.to_dlpack(src))
    assert raw.dtype is dt and raw.data_ptr() == src.data_ptr()


def test_float32_write_through_and_numpy_consumer():
    t = lucid.zeros(3)
    tt = torch.from_dlpack(t)
    tt[1] = 2.0
    assert t.tolist() == [0.0, 2.0, 0.0]
    assert np.shares_memory(np.from_dlpack(t), t.numpy())
    back = lucid.from_dlpack(torch.arange(4))
    assert back.dtype is lucid.int64 and back.tolist() == [0, 1, 2, 3]


# -- consumed once ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_a_capsule_cannot_be_consumed_twice(dtype):
    cap = torch.utils.dlpack.to_dlpack(torch.ones(2, dtype=dtype))
    lucid.from_dlpack(cap)
    with pytest.raises(ArgumentError, match=r"^from_dlpack: .*already consumed") as info:
        lucid.from_dlpack(cap)
    assert isinstance(info.value, (ValueError, RuntimeError))  # numpy's and torch's types


def test_a_lucid_capsule_consumed_by_torch_cannot_be_read_again():
    cap = _bf16(1, 2).__dlpack__()
    torch.from_dlpack(cap)
    with pytest.raises(ArgumentError, match="already consumed"):
        lucid.from_dlpack(cap)
    with pytest.raises(RuntimeError):
        torch.from_dlpack(cap)


def test_not_a_dlpack_capsule():
    import datetime

    with pytest.raises(ArgumentError, match=r"^from_dlpack: .*'dltensor'"):
        lucid.from_dlpack(datetime.datetime_CAPI)


# -- lifetime: kept while consumed, freed after ------------------------------------------------


def test_exported_bf16_memory_lives_while_torch_holds_it():
    t = _bf16(64, 64)
    arr_ref = weakref.ref(t._data)
    expected = _values(t)
    tt = torch.from_dlpack(t[:, 1:])
    del t
    gc.collect()
    assert arr_ref() is not None  # torch's tensor keeps the array alive
    junk = [np.full((64, 64), 9.0, np.float32) for _ in range(20)]
    assert tt.float().tolist() == [row[1:] for row in expected]
    del junk, tt
    gc.collect()
    assert arr_ref() is None  # deleter ran: the array is released


def test_unconsumed_bf16_capsule_releases_the_array():
    t = _bf16(8, 8)
    arr_ref = weakref.ref(t._data)
    cap = t.__dlpack__(max_version=(1, 0))
    del t
    gc.collect()
    assert arr_ref() is not None
    del cap  # destroyed unconsumed: deleter runs
    gc.collect()
    assert arr_ref() is None


def test_imported_bf16_memory_lives_while_lucid_holds_it():
    t = _bf16(16, 16)
    arr_ref = weakref.ref(t._data)
    expected = _values(t)
    imported = lucid.from_dlpack(t)  # Lucid's importer over Lucid's capsule
    view = imported.T[2:]  # a view keeps the memory alive too
    del t, imported
    gc.collect()
    assert arr_ref() is not None
    assert _values(view) == [list(col) for col in zip(*expected)][2:]
    del view
    gc.collect()
    assert arr_ref() is None  # Lucid called the producer's deleter


def test_torch_bf16_memory_outlives_the_torch_tensor():
    src = torch.arange(4096, dtype=torch.float32).to(torch.bfloat16)
    expected = src.float().tolist()
    t = lucid.from_dlpack(src)
    del src
    gc.collect()
    junk = [torch.full((4096,), 7.0, dtype=torch.bfloat16) for _ in range(20)]
    assert t.float().tolist() == expected
    del junk


def test_errors_are_lucid_errors():
    with pytest.raises(LucidError):
        lucid.from_dlpack(object())
