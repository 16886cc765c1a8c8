"""Generated programs of views, in-place writes and backward, run in PyTorch and Lucid.

Each program starts from a leaf ``a`` that requires grad and applies a few random steps —
out-of-place ops, views (slices, select, transpose, unbind, detach, view(-1), ...), and
in-place writes on any tensor so far (``mul_``, ``add_`` with another tensor, ``relu_``,
``copy_``, ``fill_``, ``zero_``, ``__setitem__``) — then a weighted sum of every tensor and
backward. Both libraries must agree on which step raises (if any), on every tensor's values
and ``requires_grad``, and on ``a.grad``: aliasing through views must see in-place changes
of any alias, as in PyTorch.
"""

import numpy as np
import pytest
import torch

import lucid

N_PROGRAMS = 800


def _views(rng, shape):
    """A random view applicable to a tensor of ``shape``: (name, fn(lib, t))."""
    nd = len(shape)
    opts = [("detach", lambda lib, t: t.detach())]
    if nd >= 1 and shape[0] >= 2:
        i = int(rng.integers(0, shape[0] - 1))
        opts.append((f"[{i}:]", lambda lib, t, i=i: t[i:]))
        opts.append((f"select(0,{i})", lambda lib, t, i=i: t.select(0, i)))
        opts.append((f"unbind(0)[{i}]", lambda lib, t, i=i: t.unbind(0)[i]))
        opts.append((f"narrow(0,{i},1)", lambda lib, t, i=i: t.narrow(0, i, 1)))
    if nd == 2:
        opts.append(("t()", lambda lib, t: t.t()))
        opts.append(("[:, ::2]", lambda lib, t: t[:, ::2]))
        opts.append(("diagonal()", lambda lib, t: t.diagonal()))
        opts.append(("unsqueeze(1)", lambda lib, t: t.unsqueeze(1)))
    if nd >= 1:
        opts.append(("view(-1)?", lambda lib, t: t.reshape(-1)))
        opts.append(("[None]", lambda lib, t: t[None]))
        opts.append(("expand", lambda lib, t: t.expand(*t.shape)))
    if nd == 2 and shape[0] * shape[1] >= 4:
        opts.append(("as_strided", lambda lib, t: t.as_strided((2, 2), (1, 2), t.storage_offset())))
    return opts[int(rng.integers(len(opts)))]


def _inplace(rng, shape, others):
    """A random in-place write on a tensor of ``shape``; ``others``: same-shape indices."""
    c = float(np.round(rng.uniform(-2, 2), 2))
    opts = [
        (f"mul_({c})", lambda lib, t, env: t.mul_(c)),
        ("relu_()", lambda lib, t, env: t.relu_()),
        ("exp_()", lambda lib, t, env: t.exp_()),
        (f"clamp_(max={c})", lambda lib, t, env: t.clamp_(max=c)),
        (f".data.mul_({c})", lambda lib, t, env: t.data.mul_(c)),
        (f".detach().add_({c})", lambda lib, t, env: t.detach().add_(c)),
        (f"fill_({c})", lambda lib, t, env: t.fill_(c)),
        ("zero_()", lambda lib, t, env: t.zero_()),
        (f"add_({c})", lambda lib, t, env: t.add_(c)),
    ]
    if others:
        j = others[int(rng.integers(len(others)))]
        opts.append((f"add_(v{j}, alpha={c})", lambda lib, t, env: t.add_(env[j], alpha=c)))
        opts.append((f"copy_(v{j})", lambda lib, t, env: t.copy_(env[j])))
        opts.append((f"mul_(v{j})", lambda lib, t, env: t.mul_(env[j])))
    if shape and shape[0] >= 1:
        opts.append((f"[0] = {c}", lambda lib, t, env: t.__setitem__(0, c)))
        if others:
            j = others[int(rng.integers(len(others)))]
            opts.append(
                (f"[...] = v{j} * 2", lambda lib, t, env: t.__setitem__(Ellipsis, env[j] * 2))
            )
    return opts[int(rng.integers(len(opts)))]


def _program(seed):
    """A list of steps ``(kind, src, name, fn)``; shapes are tracked to pick valid ones."""
    rng = np.random.default_rng(seed)
    shapes = [(3, 3)]
    steps = []
    for _ in range(int(rng.integers(3, 8))):
        k = int(rng.integers(len(shapes)))
        r = rng.uniform()
        if r < 0.25:
            c = float(np.round(rng.uniform(0.5, 2), 2))
            steps.append(("new", k, f"v{k} * {c}", lambda lib, t, c=c: t * c))
            shapes.append(shapes[k])
        elif r < 0.6:
            name, fn = _views(rng, shapes[k])
            probe = fn(torch, torch.zeros(shapes[k]))
            steps.append(("new", k, f"v{k}.{name}", fn))
            shapes.append(tuple(probe.shape))
        else:
            others = [j for j, s in enumerate(shapes) if s == shapes[k] and j != k]
            name, fn = _inplace(rng, shapes[k], others)
            steps.append(("inplace", k, f"v{k}.{name}", fn))
    weights = [rng.standard_normal(s) for s in shapes]
    return steps, weights


def _run(lib, seed):
    steps, weights = _program(seed)
    rng = np.random.default_rng(seed + 10_000)
    a = lib.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    env = [a]
    trace = []
    for i, (kind, k, name, fn) in enumerate(steps):
        try:
            if kind == "new":
                env.append(fn(lib, env[k]))
            else:
                fn(lib, env[k], env)
        except RuntimeError as e:
            return trace + [(i, name, "raises")], None, type(e).__name__
        trace.append((i, name, "ok"))
    try:
        loss = sum(
            ((t * lib.tensor(w)).sum() for t, w in zip(env, weights) if t.requires_grad),
            lib.tensor(0.0, dtype=lib.float64),
        )
        if loss.requires_grad:
            loss.backward()
    except RuntimeError as e:
        return trace + [("backward", "raises")], None, type(e).__name__
    state = [(t.detach().numpy().copy(), t.requires_grad) for t in env]
    grad = None if a.grad is None else a.grad.numpy().copy()
    return trace, (state, grad), None


@pytest.mark.parametrize("chunk", range(8))
def test_view_inplace_programs_match_torch(chunk):
    for seed in range(chunk, N_PROGRAMS, 8):
        t_trace, t_res, t_err = _run(torch, seed)
        l_trace, l_res, l_err = _run(lucid, seed)
        what = f"seed {seed}: " + "; ".join(str(s[1]) for s in _program(seed)[0] for s in [s[1:3]])
        assert l_trace == t_trace, f"{what}\ntorch: {t_trace} ({t_err})\nlucid: {l_trace} ({l_err})"
        if t_res is None:
            continue
        (t_state, t_grad), (l_state, l_grad) = t_res, l_res
        for i, ((tv, tr), (lv, lr)) in enumerate(zip(t_state, l_state)):
            np.testing.assert_allclose(
                lv, tv, rtol=1e-12, atol=1e-12, err_msg=f"{what}: value of v{i}"
            )
            assert lr == tr, f"{what}: requires_grad of v{i}: torch {tr}, lucid {lr}"
        assert (l_grad is None) == (t_grad is None), f"{what}: a.grad presence"
        if t_grad is not None:
            np.testing.assert_allclose(
                l_grad, t_grad, rtol=1e-10, atol=1e-12, err_msg=f"{what}: a.grad"
            )
