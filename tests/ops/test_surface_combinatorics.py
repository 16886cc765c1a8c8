"""cartesian_prod, combinations, block_diag, diagflat, tril_indices and triu_indices
against PyTorch (values, dtypes, gradients)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, DTypeError, ShapeError

from .surface_helpers import assert_same, check

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("sizes", [(3,), (3, 2), (2, 3, 4), (0, 3), (1, 1)])
def test_cartesian_prod_parity(sizes):
    arrays = [RNG.standard_normal(n) for n in sizes]
    check(lucid.cartesian_prod, torch.cartesian_prod, *arrays)
    check(lucid.cartesian_prod, torch.cartesian_prod, *arrays, noncontig=True)
    ints = [RNG.integers(0, 9, n) for n in sizes]
    check(lucid.cartesian_prod, torch.cartesian_prod, *ints, grad=False)


def test_cartesian_prod_errors():
    with pytest.raises(ShapeError, match="cartesian_prod"):
        lucid.cartesian_prod(lucid.zeros(2, 2), lucid.zeros(2))
    with pytest.raises(DTypeError, match="cartesian_prod"):
        lucid.cartesian_prod(lucid.tensor([1, 2]), lucid.tensor([1.5]))
    with pytest.raises(ArgumentError, match="cartesian_prod"):
        lucid.cartesian_prod()


@pytest.mark.parametrize("n", [0, 1, 4, 5])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("rep", [False, True])
def test_combinations_parity(n, r, rep):
    x = RNG.standard_normal(n)
    check(lambda t: lucid.combinations(t, r, rep), lambda t: torch.combinations(t, r, rep), x)
    check(
        lambda t: lucid.combinations(t, r=r, with_replacement=rep),
        lambda t: torch.combinations(t, r=r, with_replacement=rep),
        RNG.integers(0, 9, n),
        grad=False,
    )


def test_combinations_noncontiguous_and_errors():
    check(lucid.combinations, torch.combinations, RNG.standard_normal(5), noncontig=True)
    with pytest.raises(ShapeError, match="combinations"):
        lucid.combinations(lucid.zeros(2, 2))
    with pytest.raises(ArgumentError, match="combinations"):
        lucid.combinations(lucid.zeros(3), -1)


@pytest.mark.parametrize(
    "shapes", [[(2, 3), (1, 2)], [(), (3,), (2, 2)], [(2, 0), (1, 2)], [(3, 3)], [(0, 0), (2, 1)]]
)
def test_block_diag_parity(shapes):
    arrays = [np.asarray(RNG.standard_normal(s)) for s in shapes]
    check(lucid.block_diag, torch.block_diag, *arrays)
    check(
        lucid.block_diag, torch.block_diag, *[a.astype(np.float32) for a in arrays], noncontig=True
    )


def test_block_diag_promotes_and_handles_no_input():
    assert_same(
        lucid.block_diag(lucid.tensor([[1, 2]]), lucid.tensor([[1.5]])),
        torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[1.5]])),
    )
    assert_same(
        lucid.block_diag(lucid.tensor([[True]]), lucid.tensor([[3]], dtype=lucid.int8)),
        torch.block_diag(torch.tensor([[True]]), torch.tensor([[3]], dtype=torch.int8)),
    )
    assert_same(lucid.block_diag(), torch.block_diag())
    with pytest.raises(ShapeError, match="block_diag"):
        lucid.block_diag(lucid.zeros(2, 2, 2))


@pytest.mark.parametrize("shape", [(3,), (2, 2), (), (0,), (2, 1, 2)])
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diagflat_parity(shape, offset):
    x = np.asarray(RNG.standard_normal(shape))
    check(lambda t: lucid.diagflat(t, offset), lambda t: torch.diagflat(t, offset), x)
    check(
        lambda t: t.diagflat(offset),
        lambda t: t.diagflat(offset),
        np.asarray((x * 10).astype(np.int64)),
        grad=False,
        noncontig=bool(shape),
    )


def test_diagflat_errors():
    with pytest.raises(DTypeError, match="diagflat"):
        lucid.diagflat(lucid.zeros(3), 1.5)


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize(
    "row, col, offset",
    [(3, 3, 0), (3, 4, -1), (4, 3, 1), (2, 5, 10), (5, 2, -10), (0, 3, 0), (3, 0, 0), (1, 1, 0)],
)
def test_tri_indices_parity(name, row, col, offset):
    assert_same(getattr(lucid, name)(row, col, offset), getattr(torch, name)(row, col, offset))
    assert_same(
        getattr(lucid, name)(row, col, offset, dtype=lucid.int32),
        getattr(torch, name)(row, col, offset, dtype=torch.int32),
    )


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices_index_the_triangle(name):
    x = lucid.arange(12.0).reshape(3, 4)
    i, j = getattr(lucid, name)(3, 4, 1)
    tri = lucid.tril if name == "tril_indices" else lucid.triu
    np.testing.assert_array_equal(
        np.sort(x[i, j].numpy()),
        np.sort(tri(x, 1).numpy()[tri(lucid.ones(3, 4), 1).numpy().astype(bool)]),
    )


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices_errors(name):
    fn = getattr(lucid, name)
    with pytest.raises(ArgumentError, match=name):
        fn(-1, 3)
    with pytest.raises(DTypeError, match=name):
        fn(3, 3, dtype=lucid.float32)
    with pytest.raises(DTypeError, match=name):
        fn(3.0, 3)
