"""Fit y = a*sin(b*x) + c to noisy samples by gradient descent, with Lucid's autograd.

Prints the loss as it falls and the fitted parameters.
"""

import numpy as np

import lucid

rng = np.random.default_rng(0)
x_np = np.linspace(-3, 3, 200)
y_np = 2.0 * np.sin(1.5 * x_np) + 0.5 + 0.05 * rng.standard_normal(200)
x, y = lucid.tensor(x_np), lucid.tensor(y_np)

a = lucid.tensor(1.0, dtype=lucid.float64, requires_grad=True)
b = lucid.tensor(1.0, dtype=lucid.float64, requires_grad=True)
c = lucid.tensor(0.0, dtype=lucid.float64, requires_grad=True)
lr = 0.05

for step in range(301):
    pred = a * lucid.sin(b * x) + c
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with lucid.no_grad():
        for p in (a, b, c):
            p -= lr * p.grad
            p.grad = None
    if step % 30 == 0:
        print(f"step {step:3d}  loss {loss.item():.6f}")

print(f"fitted a={a.item():.3f} b={b.item():.3f} c={c.item():.3f} (true 2.0, 1.5, 0.5)")
