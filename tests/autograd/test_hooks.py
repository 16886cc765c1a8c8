"""Tensor and node hooks, ``retain_grad`` and post-accumulate hooks: where and in which
order they run, and what their return values do (vs torch)."""

import numpy as np
import pytest
import torch

import lucid
from lucid.errors import AutogradError, ShapeError

LIBS = (lucid, torch)
A = np.array([1.0, -2.0, 3.0])


def _np(t):
    return np.asarray(t.detach().numpy())


def _trace(build):
    """``build(M, log)`` for both libraries: the logs (lists of tuples/arrays) must agree."""
    logs = []
    for M in LIBS:
        log = []
        build(M, log)
        logs.append(log)
    got, want = logs
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert g[0] == w[0]
        for a, b in zip(g[1:], w[1:]):
            if b is None:
                assert a is None
            else:
                np.testing.assert_allclose(a, b, rtol=1e-12)


def test_non_leaf_hooks_run_in_order_and_can_replace_the_grad():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: log.append(("h1", _np(g))))
        y.register_hook(lambda g: g * 10)
        y.register_hook(lambda g: log.append(("h3", _np(g))))
        x.register_hook(lambda g: log.append(("leaf", _np(g))))
        (y * y).sum().backward()
        log.append(("x.grad", _np(x.grad)))

    _trace(build)


def test_retain_grad_sees_grad_after_the_tensor_hooks():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        z = x * 3
        z.register_hook(lambda g: g * 10)
        z.retain_grad()
        (y * 1 + z).sum().backward()
        log.append(("y.grad", _np(y.grad)))
        log.append(("z.grad", _np(z.grad)))
        log.append(("x.grad", _np(x.grad)))

    _trace(build)


def test_retain_grad_values_accumulate_over_uses_and_calls():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x.exp()
        y.retain_grad()
        assert y.retains_grad and not x.retains_grad
        out = (y * y + y * 3).sum()
        out.backward(retain_graph=True)
        log.append(("first", _np(y.grad)))
        out.backward()
        log.append(("second", _np(y.grad)))

    _trace(build)


def test_retain_grad_on_root_and_on_leaf_is_harmless():
    x = lucid.tensor(A, requires_grad=True)
    x.retain_grad()
    y = (x * 2).sum()
    y.retain_grad()
    y.backward()
    assert y.grad.item() == 1.0
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])


def test_retain_grad_without_requires_grad_raises():
    with pytest.raises(AutogradError, match="retain_grad.*requires_grad=False"):
        lucid.tensor(A).retain_grad()


def test_leaf_hook_replaces_grad_and_handle_remove():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        h = x.register_hook(lambda g: g * 0 + 7)
        (x * 3).sum().backward()
        log.append(("hooked", _np(x.grad)))
        h.remove()
        h.remove()  # removing twice is harmless
        (x * 3).sum().backward()
        log.append(("removed", _np(x.grad)))

    _trace(build)


def test_handle_remove_on_non_leaf_hook():
    x = lucid.tensor(A, requires_grad=True)
    y = x * 2
    h = y.register_hook(lambda g: g * 100)
    h.remove()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])


def test_leaf_and_non_leaf_hooks_run_in_autograd_grad():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        x.register_hook(lambda g: g * 2)
        y = x * 1
        y.register_hook(lambda g: g * 5)
        log.append(("wrt x", _np(M.autograd.grad((y * 3).sum(), x)[0])))
        y2 = x * 1
        y2.register_hook(lambda g: g * 5)
        log.append(("wrt y2", _np(M.autograd.grad((y2 * 3).sum(), y2)[0])))
        assert x.grad is None

    _trace(build)


def test_hook_in_create_graph_mode_receives_differentiable_grad():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x.exp()
        y.register_hook(lambda g: log.append(("requires_grad", g.requires_grad)))
        (g,) = M.autograd.grad((y * y).sum(), x, create_graph=True)
        log.append(("g", _np(g)))

    _trace(build)


def test_hook_changing_the_shape_raises():
    x = lucid.tensor(A, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.sum())
    with pytest.raises(
        ShapeError,
        match=r"hook '<lambda>' changed the shape of the gradient "
        r"from \(3,\) to \(\)",
    ):
        y.sum().backward()


def test_hook_returning_a_non_tensor_raises():
    x = lucid.tensor(A, requires_grad=True)

    def bad(g):
        return 1.0

    x.register_hook(bad)
    with pytest.raises(AutogradError, match="hook 'bad' returned float"):
        (x * 2).sum().backward()


def test_register_hook_without_requires_grad_raises():
    with pytest.raises(AutogradError, match="register_hook.*doesn't require gradient"):
        lucid.tensor(A).register_hook(lambda g: g)


def test_post_accumulate_grad_hook_sees_accumulated_grad():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", _np(t.grad))))
        x.register_hook(lambda g: g * 2)
        (x * 3).sum().backward()
        (x * 1).sum().backward()

    _trace(build)


def test_post_accumulate_grad_hook_not_run_by_autograd_grad():
    seen = []
    x = lucid.tensor(A, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    lucid.autograd.grad((x * 3).sum(), x)
    assert seen == []


def test_post_accumulate_grad_hook_on_non_leaf_raises():
    y = lucid.tensor(A, requires_grad=True) * 2
    with pytest.raises(AutogradError, match="only leaf tensors"):
        y.register_post_accumulate_grad_hook(lambda t: None)


def test_node_prehook_and_post_hook():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        w = M.tensor(A * 2, requires_grad=True)
        y = x * w
        y.grad_fn.register_prehook(lambda go: log.append(("pre", _np(go[0]))))
        y.grad_fn.register_hook(
            lambda gi, go: log.append(("post", _np(gi[0]), _np(gi[1]), _np(go[0])))
        )
        (y * 3).sum().backward()

    _trace(build)


def test_node_hooks_replace_gradients():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x.exp()
        y.grad_fn.register_prehook(lambda go: tuple(g + 1 for g in go))
        y.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
        y.sum().backward()
        log.append(("x.grad", _np(x.grad)))

    _trace(build)


def test_node_hook_gets_none_for_input_needing_no_grad():
    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x * M.tensor(A)
        y.grad_fn.register_hook(lambda gi, go: log.append(("gi", _np(gi[0]), gi[1])))
        y.sum().backward()

    _trace(build)


def test_node_hook_handle_remove():
    x = lucid.tensor(A, requires_grad=True)
    y = x.exp()
    seen = []
    h1 = y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    h2 = y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    h1.remove()
    h2.remove()
    y.sum().backward()
    assert seen == []


def test_hooks_and_tensor_hook_order_on_one_node():
    """Tensor hooks run before node pre-hooks, which run before the node's post hooks."""

    def build(M, log):
        x = M.tensor(A, requires_grad=True)
        y = x.exp()
        y.grad_fn.register_hook(lambda gi, go: log.append(("node post",)))
        y.grad_fn.register_prehook(lambda go: log.append(("node pre",)))
        y.register_hook(lambda g: log.append(("tensor",)))
        y.sum().backward()

    _trace(build)


def test_hook_as_context_handle():
    x = lucid.tensor(A, requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])
