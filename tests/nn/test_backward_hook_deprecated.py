"""The deprecated backward hooks, as PyTorch's: ``Module.register_backward_hook`` and
``register_module_backward_hook`` hook the node of the first output, warn where that
misses gradients, and never mix with the full hooks on one module (or globally)."""

import warnings

import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid.errors import AutogradError
from lucid.nn.modules import module as lmod

torch = pytest.importorskip("torch")
import torch.nn.modules.module as tmod  # noqa: E402


def _shapes(gs):
    return [None if g is None else tuple(g.shape) for g in gs]


def _run(lib, make, x, hook_ret=None):
    """Call ``make()``'s module on ``x * 1`` (a non-leaf input) with a deprecated hook;
    returns (what the hook saw, the input gradient, the warnings raised)."""
    seen = []

    def hook(mod, gi, go):
        seen.append(
            (mod, _shapes(gi), _shapes(go), [None if g is None else g.sum().item() for g in gi])
        )
        return hook_ret(gi) if hook_ret else None

    m = make()
    m.register_backward_hook(hook)
    xt = lib.tensor(x, requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = m(xt * 1)
    out.sum().backward()
    return m, seen, xt.grad, [str(w.message) for w in rec if w.category is FutureWarning]


X = np.array([[0.5, -1.0, 2.0]], dtype=np.float64)


@pytest.mark.parametrize("name", ["Sigmoid", "Tanh", "ReLU", "GELU"])
def test_one_node_module_sees_its_input_gradient_as_torch(name):
    m, seen, g, warned = _run(lucid, lambda: getattr(nn, name)(), X)
    tm, tseen, tg, twarned = _run(torch, lambda: getattr(torch.nn, name)(), X)
    assert len(seen) == len(tseen) == 1
    assert seen[0][0] is m
    assert seen[0][1:3] == tseen[0][1:3]
    np.testing.assert_allclose(seen[0][3], tseen[0][3])
    np.testing.assert_allclose(g.numpy(), tg.numpy())
    assert warned == twarned == []


def test_a_returned_grad_input_replaces_it_as_torch():
    zero = lambda gi: (gi[0] * 0,)  # noqa: E731
    _, _, g, _ = _run(lucid, lambda: nn.Tanh(), X, zero)
    _, _, tg, _ = _run(torch, lambda: torch.nn.Tanh(), X, zero)
    assert g.tolist() == tg.tolist() == [[0.0, 0.0, 0.0]]


def test_a_module_of_several_nodes_warns_as_torch():
    class Two(nn.Module):
        def forward(self, x):
            return (x * 2).exp()

    class TTwo(torch.nn.Module):
        def forward(self, x):
            return (x * 2).exp()

    _, seen, g, warned = _run(lucid, Two, X)
    _, tseen, tg, twarned = _run(torch, TTwo, X)
    assert warned == twarned and len(warned) == 1
    assert "contains multiple autograd Nodes" in warned[0]
    assert seen[0][1:3] == tseen[0][1:3]  # the exp node's gradients
    np.testing.assert_allclose(seen[0][3], tseen[0][3])
    np.testing.assert_allclose(g.numpy(), tg.numpy())


def test_no_hook_call_without_grad():
    m = nn.Sigmoid()
    calls = []
    m.register_backward_hook(lambda *a: calls.append(a))
    with lucid.no_grad():
        m(lucid.ones(2, requires_grad=True))
    m(lucid.ones(2))  # nothing requires grad: no node to hook
    assert calls == []


def test_full_and_deprecated_hooks_never_mix_on_one_module():
    for mk in (nn.ReLU, torch.nn.ReLU):
        m = mk()
        m.register_backward_hook(lambda *a: None)
        with pytest.raises(
            RuntimeError,
            match="Cannot use both regular backward hooks and "
            "full backward hooks on a single Module",
        ):
            m.register_full_backward_hook(lambda *a: None)
        m = mk()
        m.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Please use only one of them"):
            m.register_backward_hook(lambda *a: None)
    with pytest.raises(AutogradError):
        m = nn.ReLU()
        m.register_full_backward_hook(lambda *a: None)
        m.register_backward_hook(lambda *a: None)


def test_removed_handle_stops_the_hook():
    m = nn.Sigmoid()
    calls = []
    h = m.register_backward_hook(lambda *a: calls.append(1))
    h.remove()
    m(lucid.ones(2, requires_grad=True) * 1).sum().backward()
    assert calls == []


def test_global_deprecated_hook_runs_for_every_module_and_excludes_full_ones():
    seen = []
    h = lmod.register_module_backward_hook(lambda mod, gi, go: seen.append(type(mod)))
    try:
        net = nn.Sequential(nn.Tanh(), nn.Sigmoid())
        with pytest.warns(FutureWarning, match="multiple autograd Nodes"):  # Sequential's
            out = net(lucid.ones(2, requires_grad=True) * 1)
        out.sum().backward()
        assert nn.Sigmoid in seen and nn.Tanh in seen
        with pytest.raises(AutogradError, match="as a global Module hook"):
            lmod.register_module_full_backward_hook(lambda *a: None)
    finally:
        h.remove()
        lmod._G.backward_is_full = None  # PyTorch keeps the kind; reset for other tests
    assert hasattr(tmod, "register_module_backward_hook")
