"""linalg.eig and linalg.eigvals against torch.linalg: values, dtypes, batches, errors and
gradients (the registry suite runs gradcheck and gradgradcheck on them too)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import DTypeError, ShapeError

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 5, 5))
Z = A + 1j * RNG.standard_normal(A.shape)


def _sorted(w):
    w = np.asarray(w)
    return np.sort_complex(w.reshape(-1, w.shape[-1])).reshape(w.shape)


@pytest.mark.parametrize(
    "data", [A, Z, A[0], A.astype(np.float32)], ids=["real", "complex", "2-d", "float32"]
)
def test_eigenpairs_decompose_and_match_torch(data):
    w, v = lucid.linalg.eig(lucid.tensor(data))
    wt = torch.linalg.eigvals(torch.tensor(data))
    assert w.dtype.name == str(wt.dtype).removeprefix("torch.")
    assert v.dtype is w.dtype and tuple(v.shape) == data.shape
    tol = 1e-4 if data.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(_sorted(w.numpy()), _sorted(wt.numpy()), atol=tol)
    a, wn, vn = data.astype(v.numpy().dtype), w.numpy(), v.numpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, atol=tol)
    np.testing.assert_allclose(lucid.linalg.eigvals(lucid.tensor(data)).numpy(), wn, atol=tol)


def test_real_input_with_complex_pair_and_empty_batch():
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    w = lucid.linalg.eigvals(lucid.tensor(rot))
    assert w.dtype is lucid.complex128
    np.testing.assert_allclose(np.sort_complex(w.numpy()), [-1j, 1j], atol=1e-12)
    e, ev = lucid.linalg.eig(lucid.zeros(0, 3, 3))
    assert tuple(e.shape) == (0, 3) and tuple(ev.shape) == (0, 3, 3)
    assert e.dtype is lucid.complex64


def test_errors():
    with pytest.raises(ShapeError, match="linalg.eig: A must be batches of square matrices"):
        lucid.linalg.eig(lucid.zeros(3, 4))
    with pytest.raises(ShapeError, match="linalg.eigvals: A must have at least 2 dimensions"):
        lucid.linalg.eigvals(lucid.zeros(3))
    with pytest.raises(DTypeError, match="linalg.eig: expected A to be a float32"):
        lucid.linalg.eig(lucid.zeros(2, 2, dtype=lucid.int64))
    with pytest.raises(DTypeError, match="linalg.eigvals"):
        lucid.linalg.eigvals(lucid.zeros(2, 2).to(lucid.bfloat16))


@pytest.mark.parametrize("data", [A, Z], ids=["real", "complex"])
def test_gradients_match_torch(data):
    W = RNG.standard_normal(data.shape)
    u = RNG.standard_normal(data.shape[:-1])
    grads = []
    for lib, t in (
        (lucid, lucid.tensor(data, requires_grad=True)),
        (torch, torch.tensor(data, requires_grad=True)),
    ):
        w, v = lib.linalg.eig(t)
        loss = (
            (lib.tensor(W) * v.abs() ** 2).sum()
            + (lib.tensor(u) * w.real).sum()
            + (w.imag**2).sum()
            + lib.linalg.eigvals(t).abs().sum()
        )
        loss.backward()
        g = t.grad
        grads.append(g.numpy() if lib is lucid else g.resolve_conj().numpy())
    assert grads[0].dtype == data.dtype  # a real input keeps the real part
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-9)


def test_float32_gradient_through_eigenvalues_only():
    a = lucid.tensor(A[0].astype(np.float32), requires_grad=True)
    t = torch.tensor(A[0].astype(np.float32), requires_grad=True)
    lucid.linalg.eigvals(a).real.sum().backward()
    torch.linalg.eigvals(t).real.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), atol=1e-4)


def test_complex_solve_matches_torch_with_gradients():
    a_np = Z[0] + 4 * np.eye(5)
    b_np = Z[1][:, :2]
    out = []
    for lib in (lucid, torch):
        a, b = lib.tensor(a_np, requires_grad=True), lib.tensor(b_np, requires_grad=True)
        x = lib.linalg.solve(a, b)
        (x.abs() ** 2).sum().backward()
        out.append(
            [
                t.detach().numpy() if lib is lucid else t.detach().resolve_conj().numpy()
                for t in (x, a.grad, b.grad)
            ]
        )
    for got, ref in zip(*out):
        np.testing.assert_allclose(got, ref, atol=1e-10)
    with pytest.raises(DTypeError, match="linalg.solve"):
        lucid.linalg.solve(lucid.tensor(A[0]), lucid.tensor(Z[0]))
