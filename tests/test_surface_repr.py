"""A generated differential test of ``repr`` against PyTorch: random shapes (0-d, empty,
summarised), dtypes, magnitudes and special values (nan, inf, -0.), with and without
requires_grad, under the default print options."""

import numpy as np
import pytest
import torch

import lucid

_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


def _data(rng, shape, kind):
    if kind == 0:
        return rng.standard_normal(shape)
    if kind == 1:
        return rng.standard_normal(shape) * 10.0 ** int(rng.integers(-10, 12))
    if kind == 2:
        return np.round(rng.standard_normal(shape) * 100)
    if kind == 3:
        return rng.choice(
            [0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, 2.0, -3.25, 1e-5, 123456.0], size=shape
        )
    return rng.uniform(0, 1, shape) ** 8


def _pair(rng):
    nd = int(rng.integers(0, 4))
    hi = 6 if nd < 3 else 4
    shape = tuple(
        int(s)
        for s in (rng.integers(0, hi, nd) if rng.random() < 0.85 else rng.integers(12, 40, nd))
    )
    name = _DTYPES[int(rng.integers(len(_DTYPES)))]
    a = _data(rng, shape, int(rng.integers(5)))
    if name in ("int64", "int32", "int8", "uint8", "bool"):
        a = np.nan_to_num(a, nan=0, posinf=0, neginf=0)
        a = {
            "bool": lambda v: v > 0,
            "uint8": lambda v: np.abs(v) % 256,
            "int8": lambda v: np.clip(v, -128, 127),
        }.get(name, lambda v: v)(a)
        a = a.astype(np.dtype(name) if name != "bool" else np.bool_)
        return lucid.tensor(a), torch.tensor(a)
    if name == "float16":
        a = np.clip(a, -6e4, 6e4)
    lt = lucid.tensor(a.astype(np.float64)).to(getattr(lucid, name))
    tt = torch.tensor(a.astype(np.float64)).to(getattr(torch, name))
    if name in ("float32", "float64") and rng.random() < 0.2:
        lt.requires_grad_()
        tt.requires_grad_()
    return lt, tt


@pytest.mark.parametrize("seed", range(20))
def test_generated_reprs_match_torch(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        lt, tt = _pair(rng)
        assert repr(lt) == repr(tt).replace("torch.", "lucid.")
