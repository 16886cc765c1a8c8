"""The functional transforms are reachable from ``lucid.autograd`` itself, and compute what
``lucid.autograd.functional`` does. (Checkpointing lives at ``lucid.utils.checkpoint`` only,
as PyTorch's.)"""

import pytest

import lucid
import lucid.autograd as A
import lucid.autograd.functional as AF

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_functional_transforms_are_reachable_from_autograd(name):
    assert getattr(A, name) is getattr(AF, name)
    assert name in A.__all__
    assert hasattr(torch.autograd.functional, name)


def test_jacobian_and_hessian_through_the_short_names_match_torch():
    x = [0.5, -1.0, 2.0]
    f_l = lambda t: (t**3).sum() * t[0]  # noqa: E731
    f_t = lambda t: (t**3).sum() * t[0]  # noqa: E731
    xl = lucid.tensor(x, dtype=lucid.float64)
    xt = torch.tensor(x, dtype=torch.float64)
    assert lucid.allclose(
        A.jacobian(f_l, xl), lucid.tensor(torch.autograd.functional.jacobian(f_t, xt).numpy())
    )
    assert lucid.allclose(
        A.hessian(f_l, xl), lucid.tensor(torch.autograd.functional.hessian(f_t, xt).numpy())
    )
    _, hv = A.hvp(f_l, xl, lucid.ones(3, dtype=lucid.float64))
    _, thv = torch.autograd.functional.hvp(f_t, xt, torch.ones(3, dtype=torch.float64))
    assert lucid.allclose(hv, lucid.tensor(thv.numpy()))
