"""Fit y = a*sin(b*x) + c to noisy samples by gradient descent, with Lucid's autograd.

Prints the loss as it falls and the fitted parameters.

    python examples/fit_curve.py [--compile]

``--compile`` wraps the step (forward, backward, the in-place updates) in ``lucid.compile``.
"""

import argparse

import numpy as np

import lucid


def problem():
    """The samples ``(x, y)`` and the parameters ``[a, b, c]`` to fit (float64)."""
    rng = np.random.default_rng(0)
    x_np = np.linspace(-3, 3, 200)
    y_np = 2.0 * np.sin(1.5 * x_np) + 0.5 + 0.05 * rng.standard_normal(200)
    params = [lucid.tensor(v, dtype=lucid.float64, requires_grad=True) for v in (1.0, 1.0, 0.0)]
    return lucid.tensor(x_np), lucid.tensor(y_np), params


def make_step(x, y, params, lr=0.05):
    """One step of gradient descent on the mean squared error; returns the loss."""
    a, b, c = params

    def step():
        pred = a * lucid.sin(b * x) + c
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with lucid.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss

    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compile", action="store_true", help="lucid.compile the step")
    args = ap.parse_args()
    x, y, params = problem()
    step = make_step(x, y, params)
    if args.compile:
        step = lucid.compile(step)
    for i in range(301):
        loss = step()
        if i % 30 == 0:
            print(f"step {i:3d}  loss {loss.item():.6f}")
    a, b, c = (p.item() for p in params)
    print(f"fitted a={a:.3f} b={b:.3f} c={c:.3f} (true 2.0, 1.5, 0.5)")


if __name__ == "__main__":
    main()
