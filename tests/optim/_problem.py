"""The shared test problem: a small MLP regression run in PyTorch and in Lucid from the same
initial weights and data, so that optimizer trajectories can be compared step for step."""

import numpy as np
import torch

import lucid

RNG = np.random.default_rng(1234)
SHAPES = [(5, 8), (8,), (8, 3), (3,)]
INIT = [RNG.standard_normal(s) * 0.5 for s in SHAPES]
X = RNG.standard_normal((16, 5))
Y = RNG.standard_normal((16, 3))


def torch_params(values=INIT, dtype=np.float32):
    return [torch.tensor(np.asarray(v, dtype=dtype), requires_grad=True) for v in values]


def lucid_params(values=INIT, dtype=np.float32):
    return [lucid.tensor(np.asarray(v, dtype=dtype), requires_grad=True) for v in values]


def loss_of(lib, params, dtype=np.float32):
    """Mean squared error of ``tanh(x W1 + b1) W2 + b2`` against ``y`` (ops of ``lib``)."""
    w1, b1, w2, b2 = params
    x, y = lib.tensor(X.astype(dtype)), lib.tensor(Y.astype(dtype))
    return ((lib.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean()


def closure_for(lib, opt, params, dtype=np.float32):
    """The closure of one evaluation; for an optimizer with ``maximize`` it returns the
    negated loss (ascending it is the same stable problem, and an ignored ``maximize``
    would diverge)."""
    sign = -1.0 if opt.param_groups[0].get("maximize") else 1.0

    def closure():
        opt.zero_grad()
        loss = loss_of(lib, params, dtype) * sign
        loss.backward()
        return loss

    return closure


def run(lib, opt, params, steps, dtype=np.float32):
    """``steps`` optimizer steps on the problem; returns the parameters as arrays."""
    closure = closure_for(lib, opt, params, dtype)
    for _ in range(steps):
        opt.step(closure)
    return values(params)


def values(params):
    return [p.detach().numpy().copy() for p in params]


def to_lucid(obj):
    """A torch object (state dict) with every tensor converted to a Lucid tensor."""
    if isinstance(obj, torch.Tensor):
        return lucid.tensor(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: to_lucid(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_lucid(v) for v in obj)
    return obj


def assert_close(a, b, dtype=np.float32):
    tol = 2e-5 if dtype == np.float32 else 1e-10
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)
