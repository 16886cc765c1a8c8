"""Type promotion matches PyTorch for every pair of the ten dtypes: ``promote_types``,
``result_type`` (tensor-tensor, tensor-0-d tensor, 0-d-0-d, tensor-Python scalar) and the
dtype and values of ``a + b`` for all of them."""

import itertools

import numpy as np
import pytest
import torch

import lucid

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
PAIRS = list(itertools.product(NAMES, NAMES))
SCALARS = [True, 3, 2.5]


def _pair(name, shape, seed):
    """The same small non-negative values as a Lucid and a torch tensor of dtype ``name``."""
    vals = np.random.default_rng(seed).integers(0, 4, size=shape)
    t = torch.tensor(vals.tolist() if shape else int(vals)).to(getattr(torch, name))
    return lucid.tensor(t.float().numpy()).to(name), t


def _check(lo, to):
    assert lo.dtype.name == str(to.dtype).removeprefix("torch.")
    assert tuple(lo.shape) == tuple(to.shape)
    np.testing.assert_array_equal(lo.float().numpy(), to.float().numpy())


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promote_types_and_add_match_torch(a, b):
    la, lb = getattr(lucid, a), getattr(lucid, b)
    ta, tb = getattr(torch, a), getattr(torch, b)
    assert lucid.promote_types(la, lb).name == str(torch.promote_types(ta, tb))[6:]
    for sa, sb in (((3,), (3,)), ((2, 3), ()), ((), (2, 3)), ((), ())):
        xa, ya = _pair(a, sa, 0)
        xb, yb = _pair(b, sb, 1)
        assert lucid.result_type(xa, xb).name == str(torch.result_type(ya, yb))[6:]
        _check(xa + xb, ya + yb)
        _check(lucid.add(xa, xb), torch.add(ya, yb))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS, ids=["bool", "int", "float"])
def test_tensor_with_python_scalar_matches_torch(name, scalar):
    for shape in ((3,), ()):
        x, y = _pair(name, shape, 2)
        want = str(torch.result_type(y, scalar))[6:]
        assert lucid.result_type(x, scalar).name == want
        assert lucid.result_type(scalar, x).name == want
        _check(x + scalar, y + scalar)
        _check(scalar + x, scalar + y)
        _check(x * scalar, y * scalar)


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_python_float_follows_default_dtype(default):
    lucid.set_default_dtype(getattr(lucid, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        for name in NAMES:
            x, y = _pair(name, (2,), 3)
            _check(x + 1.5, y + 1.5)
            _check(x / 2, y / 2)
        assert lucid.result_type(2.5, 1).name == str(torch.result_type(torch.tensor(2.5), 1))[6:]
    finally:
        lucid.set_default_dtype(lucid.float32)
        torch.set_default_dtype(torch.float32)


def test_result_type_of_several_operands():
    x = lucid.tensor([1, 2], dtype=lucid.int8)
    z = lucid.tensor(1.0, dtype=lucid.float64)
    assert (
        lucid.result_type(x, z, 3).name
        == str(
            torch.result_type(
                torch.tensor([1, 2], dtype=torch.int8), torch.tensor(1.0, dtype=torch.float64)
            )
        )[6:]
    )
    assert lucid.result_type(x, lucid.tensor([1], dtype=lucid.uint8), 2.5) is lucid.float32
    assert lucid.result_type(True, 2) is lucid.int64
    assert lucid.result_type(2, 2.5) is lucid.float32
