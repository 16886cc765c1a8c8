"""linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch.linalg: factors and pivots
(LAPACK's Bunch-Kaufman choices) on real, complex symmetric and Hermitian matrices, solves,
batches, errors, and that neither is differentiable (as in PyTorch)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import ArgumentError, AutogradError, DTypeError, ShapeError

L = lucid.linalg


def _matrix(rng, n, kind):
    a = rng.standard_normal((n, n))
    if kind:
        a = a + 1j * rng.standard_normal((n, n))
    a = a + (a.conj().T if kind == 2 else a.T)
    if rng.random() < 0.5:  # small diagonals: 2 x 2 pivots
        a = a - 0.97 * np.diag(np.diag(a))
    return a


@pytest.mark.parametrize("kind", [0, 1, 2], ids=["real", "complex symmetric", "hermitian"])
def test_factors_pivots_and_solves_match_torch(kind):
    rng = np.random.default_rng(kind)
    two_by_two = 0
    for _ in range(40):
        n = int(rng.integers(1, 8))
        a, herm = _matrix(rng, n, kind), kind == 2
        ld, piv = L.ldl_factor(lucid.tensor(a), hermitian=herm)
        tld, tpiv = torch.linalg.ldl_factor(torch.tensor(a), hermitian=herm)
        np.testing.assert_allclose(ld.numpy(), tld.numpy(), atol=1e-10)
        np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
        two_by_two += bool((piv.numpy() < 0).any())
        b = rng.standard_normal((n, 2)) * (1 + 1j if kind else 1)
        x = L.ldl_solve(ld, piv, lucid.tensor(b), hermitian=herm)
        np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-8)
    assert two_by_two >= 5  # the 2 x 2 branch was exercised


def test_batches_float32_and_broadcast_solve():
    rng = np.random.default_rng(7)
    a = np.stack([_matrix(rng, 5, 0) for _ in range(6)]).reshape(2, 3, 5, 5)
    ld, piv, info = L.ldl_factor_ex(lucid.tensor(a, dtype=lucid.float32))
    assert ld.dtype is lucid.float32 and piv.dtype is lucid.int32 and tuple(info.shape) == (2, 3)
    tld, tpiv, _ = torch.linalg.ldl_factor_ex(torch.tensor(a, dtype=torch.float32))
    np.testing.assert_allclose(ld.numpy(), tld.numpy(), atol=1e-4)
    b = rng.standard_normal((5, 4))  # one right-hand side for the batch
    x = L.ldl_solve(ld, piv, lucid.tensor(b, dtype=lucid.float32))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), atol=1e-3)


def test_zero_pivot_info_and_errors():
    z = lucid.zeros(2, 3, 3)
    assert L.ldl_factor_ex(z).info.tolist() == [1, 1]
    with pytest.raises(ArgumentError, match="linalg.ldl_factor: the factorization could not"):
        L.ldl_factor(z)
    with pytest.raises(ArgumentError, match="ldl_factor_ex"):
        L.ldl_factor_ex(z, check_errors=True)
    with pytest.raises(ShapeError, match="linalg.ldl_factor: A must be batches of square"):
        L.ldl_factor(lucid.zeros(3, 4))
    with pytest.raises(DTypeError, match="linalg.ldl_factor: expected A"):
        L.ldl_factor(lucid.zeros(3, 3, dtype=lucid.int64))
    ld, piv = L.ldl_factor(lucid.eye(3, dtype=lucid.float64))
    with pytest.raises(ShapeError, match="linalg.ldl_solve: incompatible shapes"):
        L.ldl_solve(ld, piv, lucid.zeros(4, 2, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="pivots to be an int32"):
        L.ldl_solve(ld, piv.long(), lucid.zeros(3, 2, dtype=lucid.float64))
    with pytest.raises(DTypeError, match="dtype of LD"):
        L.ldl_solve(ld, piv, lucid.zeros(3, 2))


def test_not_differentiable_as_in_torch():
    a = lucid.tensor(_matrix(np.random.default_rng(3), 4, 0), requires_grad=True)
    ld, piv = L.ldl_factor(a)
    assert ld.requires_grad and not piv.requires_grad
    with pytest.raises(AutogradError, match="not differentiable"):
        ld.sum().backward()
    b = lucid.ones(4, 1, dtype=lucid.float64, requires_grad=True)
    x = L.ldl_solve(ld.detach(), piv, b)
    with pytest.raises(AutogradError, match="not differentiable"):
        x.sum().backward()
