"""Dtypes: limits (finfo/iinfo), names, the default dtype, promotion and casting rules,
all against PyTorch."""

import itertools

import ml_dtypes
import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DTypeError

NAMES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.fixture
def restore_default_dtype():
    yield
    lucid.set_default_dtype(lucid.float32)
    torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("field", ["bits", "eps", "max", "min", "tiny", "smallest_normal"])
def test_finfo_matches_torch(name, field):
    got = getattr(lucid.finfo(getattr(lucid, name)), field)
    want = getattr(torch.finfo(getattr(torch, name)), field)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32"])
def test_finfo_resolution_matches_torch(name):
    assert (
        lucid.finfo(getattr(lucid, name)).resolution == torch.finfo(getattr(torch, name)).resolution
    )


def test_finfo_resolution_float64():
    assert lucid.finfo(lucid.float64).resolution == torch.finfo(torch.float64).resolution


def test_finfo_default_and_by_name(restore_default_dtype):
    assert lucid.finfo().bits == 32
    assert lucid.finfo("float64").eps == np.finfo(np.float64).eps
    lucid.set_default_dtype(lucid.float64)
    assert lucid.finfo().bits == 64


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("field", ["bits", "max", "min"])
def test_iinfo_matches_torch(name, field):
    assert getattr(lucid.iinfo(getattr(lucid, name)), field) == getattr(
        torch.iinfo(getattr(torch, name)), field
    )


def test_info_of_wrong_kind_raises():
    with pytest.raises(DTypeError, match="finfo: got lucid.int32, expected a floating dtype"):
        lucid.finfo(lucid.int32)
    with pytest.raises(DTypeError, match="iinfo: got lucid.float32, expected an integer"):
        lucid.iinfo(lucid.float32)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes_match_torch(name):
    d, t = getattr(lucid, name), getattr(torch, name)
    assert d.name == name
    assert repr(d) == f"lucid.{name}" and str(d) == f"lucid.{name}"
    assert d.itemsize == t.itemsize
    assert d.is_floating_point == t.is_floating_point
    assert d.is_signed == t.is_signed
    assert d.is_complex is False


@pytest.mark.parametrize(
    "alias, name",
    [
        ("half", "float16"),
        ("float", "float32"),
        ("double", "float64"),
        ("long", "int64"),
        ("int", "int32"),
        ("short", "int16"),
    ],
)
def test_aliases(alias, name):
    assert getattr(lucid, alias) is getattr(lucid, name)
    assert lucid.dtypes.as_dtype(alias) is getattr(lucid, name)


@pytest.mark.parametrize(
    "spec, name",
    [
        ("float32", "float32"),
        ("lucid.float64", "float64"),
        ("torch.int8", "int8"),
        (np.float16, "float16"),
        (np.dtype("int32"), "int32"),
        (np.bool_, "bool"),
        (ml_dtypes.bfloat16, "bfloat16"),
        (float, "float64"),
        (int, "int64"),
        (bool, "bool"),
        (torch.bfloat16, "bfloat16"),
        (torch.uint8, "uint8"),
    ],
)
def test_as_dtype(spec, name):
    assert lucid.dtypes.as_dtype(spec) is getattr(lucid, name)


@pytest.mark.parametrize("spec", ["float128", "complex32", np.complex256, "", object])
def test_as_dtype_unsupported_raises(spec):
    with pytest.raises(DTypeError, match="unsupported dtype.*expected one of bool, uint8"):
        lucid.dtypes.as_dtype(spec)


def test_dtype_pickles_to_the_same_object():
    import pickle

    for name in NAMES:
        d = getattr(lucid, name)
        assert pickle.loads(pickle.dumps(d)) is d


def test_set_and_get_default_dtype(restore_default_dtype):
    assert lucid.get_default_dtype() is lucid.float32
    assert lucid.tensor([1.5]).dtype is lucid.float32
    lucid.set_default_dtype(lucid.float64)
    assert lucid.get_default_dtype() is lucid.float64
    assert lucid.tensor([1.5]).dtype is lucid.float64
    assert lucid.tensor([1, 2]).dtype is lucid.int64
    assert lucid.dtypes.as_dtype(float) is lucid.float64
    assert (lucid.tensor([1, 2]) * 0.5).dtype is lucid.float64
    lucid.set_default_dtype("float32")
    assert lucid.tensor(1.5).dtype is lucid.float32


def test_set_default_dtype_rejects_non_float(restore_default_dtype):
    with pytest.raises(
        DTypeError, match="set_default_dtype: got lucid.int64, expected a floating dtype"
    ):
        lucid.set_default_dtype(lucid.int64)
    assert lucid.get_default_dtype() is lucid.float32


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_matches_torch(a, b):
    got = lucid.promote_types(getattr(lucid, a), getattr(lucid, b))
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert got.name == str(want).removeprefix("torch.")


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_can_cast_matches_torch(a, b):
    assert lucid.can_cast(getattr(lucid, a), getattr(lucid, b)) == torch.can_cast(
        getattr(torch, a), getattr(torch, b)
    )


def _operands(M, spec):
    """Operands for result_type: ('t', dtype) a 1-d tensor, ('z', dtype) a 0-d tensor, or a
    Python scalar."""
    out = []
    for s in spec:
        if isinstance(s, tuple):
            kind, name = s
            shape = (2,) if kind == "t" else ()
            out.append(
                M.zeros(shape, dtype=getattr(M, name))
                if M is torch
                else lucid.tensor(np.zeros(shape), dtype=getattr(lucid, name))
            )
        else:
            out.append(s)
    return out


@pytest.mark.parametrize(
    "spec",
    [
        [("t", "int32"), 2.5],
        [("t", "int32"), 2],
        [("t", "uint8"), -1],
        [("t", "bool"), 1],
        [("t", "bool"), True],
        [("t", "float16"), 1.0],
        [("t", "float16"), ("t", "bfloat16")],
        [("t", "int8"), ("z", "int64")],
        [("t", "int8"), ("z", "float64")],
        [("t", "float16"), ("z", "float64")],
        [("z", "int32"), 2.5],
        [("z", "int32"), 7],
        [("t", "uint8"), ("t", "int8")],
        [("t", "int64"), ("t", "float16")],
        [("z", "bool"), ("z", "uint8"), 1.0],
        [("t", "bool"), ("z", "int16"), 3.0],
    ],
)
def test_result_type_matches_torch(spec):
    got = lucid.result_type(*_operands(lucid, spec))
    want = torch.result_type(*_operands(torch, spec)[:2]) if len(spec) == 2 else None
    if want is None:  # torch.result_type takes two operands: fold pairwise via ops
        ops = _operands(torch, spec)
        want = (ops[0] + ops[1] + ops[2]).dtype
    assert got.name == str(want).removeprefix("torch.")


def test_floating_point_helpers():
    assert lucid.is_floating_point(lucid.tensor([1.0]))
    assert not lucid.is_floating_point(lucid.tensor([1]))
    assert lucid.tensor([1.0]).is_floating_point() and not lucid.tensor([True]).is_floating_point()
    assert lucid.is_tensor(lucid.tensor(1)) and not lucid.is_tensor(np.zeros(1))
