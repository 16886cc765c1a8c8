"""lucid.utils.checkpoint: gradients equal the plain run (backward and autograd.grad, to
inputs, parameters and outside tensors with history; nested; create_graph), the RNG state
is replayed, autocast is replayed, activations are not kept, and the error paths."""

import gc
import weakref

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tcp

import lucid
from lucid.errors import ArgumentError, AutogradError, VersionMismatchError
from lucid.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(4)


def _params():
    w1 = lucid.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    w2 = lucid.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    return w1, w2


def _block(w1, w2):
    def f(x, scale=1.0):
        h = (x @ w1).tanh() * scale
        return (h @ w2).sin(), h.sum()

    return f


def _grads(loss, wrt):
    return [g.numpy() for g in lucid.autograd.grad(loss, wrt, allow_unused=True)]


def test_gradients_equal_the_plain_run():
    w1, w2 = _params()
    x = lucid.tensor(RNG.standard_normal((5, 3)), requires_grad=True)
    f = _block(w1, w2)
    out, s = checkpoint(f, x, use_reentrant=False, scale=0.5)
    pout, ps = f(x, scale=0.5)
    np.testing.assert_allclose(out.detach().numpy(), pout.detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(s.detach().numpy(), ps.detach().numpy(), rtol=1e-14)
    got = _grads((out**2).sum() + 3 * s, [x, w1, w2])
    want = _grads((pout**2).sum() + 3 * ps, [x, w1, w2])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)
    # .backward() fills the leaves' .grad the same way
    out, s = checkpoint(f, x, scale=0.5)
    ((out**2).sum() + 3 * s).backward()
    np.testing.assert_allclose(w1.grad.numpy(), want[1], rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), want[0], rtol=1e-13)


def test_matches_torch_checkpoint():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4))
    lx, lw = lucid.tensor(a, requires_grad=True), lucid.tensor(b, requires_grad=True)
    tx, tw = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ly = checkpoint(lambda v: (v @ lw).exp().log1p(), lx, use_reentrant=False)
    ty = tcp.checkpoint(lambda v: (v @ tw).exp().log1p(), tx, use_reentrant=False)
    lg = lucid.autograd.grad(ly.sum(), [lx, lw])
    tg = torch.autograd.grad(ty.sum(), [tx, tw])
    for l, t in zip(lg, tg):
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12)


def test_activations_are_not_kept():
    w1, w2 = _params()
    refs = []

    def f(x):
        h = (x @ w1).exp()
        refs.append(weakref.ref(h._data))
        return (h * 2).sum()

    x = lucid.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    kept = f(x)  # control: the plain run's graph holds h
    gc.collect()
    assert refs[0]() is not None
    y = checkpoint(f, x)
    gc.collect()
    assert refs[1]() is None
    node = y.grad_fn
    assert node.name() == "_CheckpointBackward"
    # the node's inputs: the argument and the one parameter the function read
    assert len([e for e in node.next_functions if e[0] is not None]) == 2
    y.backward()
    gc.collect()
    assert len(refs) == 3 and refs[2]() is None  # the recomputation's h died with it
    np.testing.assert_allclose(x.grad.numpy(), _grads(kept, [x])[0], rtol=1e-13)


def _dropout_block(w):
    def f(x):
        h = x @ w
        mask = lucid.rand_like(h) > 0.5
        return (h * mask * 2.0).sin()

    return f


def test_rng_state_is_replayed_and_restored():
    w, _ = _params()
    x = lucid.tensor(RNG.standard_normal((6, 3)), requires_grad=True)
    f = _dropout_block(w)
    lucid.manual_seed(123)
    plain = f(x)
    after_plain = lucid.rand(3)
    want = _grads(plain.sum(), [x, w])
    lucid.manual_seed(123)
    ck = checkpoint(f, x)
    np.testing.assert_allclose(ck.detach().numpy(), plain.detach().numpy(), rtol=1e-14)
    got = _grads(ck.sum(), [x, w])
    # the recomputation drew the same mask, and did not move the program's stream
    np.testing.assert_array_equal(lucid.rand(3).numpy(), after_plain.numpy())
    for g, ww in zip(got, want):
        np.testing.assert_allclose(g, ww, rtol=1e-13, atol=1e-14)


def test_without_preserving_the_rng_state_the_mask_changes():
    w, _ = _params()
    x = lucid.tensor(RNG.standard_normal((20, 3)), requires_grad=True)
    f = _dropout_block(w)
    lucid.manual_seed(5)
    want = _grads(f(x).sum(), [x])[0]
    lucid.manual_seed(5)
    got = _grads(checkpoint(f, x, preserve_rng_state=False).sum(), [x])[0]
    assert not np.allclose(got, want)


def test_outside_tensors_with_history():
    w0 = lucid.tensor(RNG.standard_normal(3), requires_grad=True)
    x = lucid.tensor(RNG.standard_normal((4, 3)), requires_grad=True)

    def run(use_ck):
        outer = w0.exp() * 2  # made outside, read inside
        f = lambda v: (v * outer).sin()  # noqa: E731
        y = checkpoint(f, x) if use_ck else f(x)
        return (y.sum() + outer.sum() * 3).cos()  # outer also used outside

    want = _grads(run(False), [x, w0])
    got = _grads(run(True), [x, w0])
    for g, ww in zip(got, want):
        np.testing.assert_allclose(g, ww, rtol=1e-13, atol=1e-14)
    loss = run(True)
    loss.backward()
    np.testing.assert_allclose(w0.grad.numpy(), want[1], rtol=1e-13)


def test_nested_checkpoints_and_sequential():
    w1, w2 = _params()
    x = lucid.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    inner = lambda v: (v @ w1).relu()  # noqa: E731
    outer = lambda v: (checkpoint(inner, v) @ w2).tanh()  # noqa: E731
    want = _grads((inner(x) @ w2).tanh().sum(), [x, w1, w2])
    got = _grads(checkpoint(outer, x).sum(), [x, w1, w2])
    for g, ww in zip(got, want):
        np.testing.assert_allclose(g, ww, rtol=1e-13, atol=1e-14)
    fns = [lambda v: v @ w1, lambda v: v.tanh(), lambda v: v @ w2, lambda v: v.exp()]
    plain = x
    for fn in fns:
        plain = fn(plain)
    want = _grads(plain.sum(), [x, w1, w2])
    got = _grads(checkpoint_sequential(fns, 2, x).sum(), [x, w1, w2])
    for g, ww in zip(got, want):
        np.testing.assert_allclose(g, ww, rtol=1e-13, atol=1e-14)


def test_double_backward_through_a_checkpoint():
    w, _ = _params()
    x = lucid.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    f = lambda v: ((v @ w) ** 3).sum()  # noqa: E731

    def second(y):
        (g,) = lucid.autograd.grad(y, x, create_graph=True)
        return _grads((g**2).sum(), [x, w])

    for g, ww in zip(second(checkpoint(f, x)), second(f(x))):
        np.testing.assert_allclose(g, ww, rtol=1e-12, atol=1e-13)


def test_autocast_state_is_replayed():
    w, _ = _params()
    x = lucid.tensor(RNG.standard_normal((2, 3)).astype(np.float32), requires_grad=True)
    w32 = w.detach().float().requires_grad_()
    f = lambda v: (v @ w32).float().exp()  # noqa: E731
    with lucid.autocast(device_type="cpu", dtype=lucid.bfloat16):
        plain = f(x)
        ck = checkpoint(f, x)
    want = _grads(plain.sum(), [x, w32])
    got = _grads(ck.sum(), [x, w32])
    for g, ww in zip(got, want):
        np.testing.assert_allclose(g, ww, rtol=1e-6, atol=1e-7)


def test_no_grad_and_non_tensor_arguments():
    w, _ = _params()
    with lucid.no_grad():
        y = checkpoint(lambda v, k: v @ w * k, lucid.ones(2, 3, dtype=lucid.float64), 2.0)
    assert not y.requires_grad
    x = lucid.ones(2, 3, dtype=lucid.float64, requires_grad=True)
    out = checkpoint(lambda v, k, tag: [v @ w * k, tag], x, 3.0, "tag")
    assert isinstance(out, list) and out[1] == "tag"
    out[0].sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3.0 * np.full((3, 4), 2.0))


def test_identity_and_outputs_without_history():
    x = lucid.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda v: v, x)
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    vals, idx = checkpoint(lambda v: (v.exp(), v.argmax()), x)
    assert not idx.requires_grad and idx.item() == 1
    z = checkpoint(lambda v: v.detach() * 2, x)
    tz = tcp.checkpoint(
        lambda v: v.detach() * 2, torch.tensor([1.0, 2.0], requires_grad=True), use_reentrant=False
    )
    assert z.requires_grad == tz.requires_grad == False  # noqa: E712


def test_checkpoint_errors():
    x = lucid.ones(2, requires_grad=True)
    with pytest.raises(ArgumentError, match="checkpoint"):
        checkpoint(lambda v: v * 2, x, use_reentrant=True)
    with pytest.raises(ArgumentError, match="checkpoint"):
        checkpoint(42, x)
    with pytest.raises(ArgumentError, match="checkpoint"):
        checkpoint(lambda v: {"y": v * 2}, x)
    calls = []

    def changing(v):
        calls.append(1)
        return v.repeat(len(calls))

    y = checkpoint(changing, x)
    with pytest.raises(AutogradError, match="checkpoint"):
        y.sum().backward()
    base = lucid.ones(2, requires_grad=True)
    v = base * 1
    z = checkpoint(lambda t: t.exp(), v)
    v.add_(1.0)
    with pytest.raises(VersionMismatchError):
        z.sum().backward()
