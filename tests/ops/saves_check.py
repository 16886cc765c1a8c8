"""Shared check: an op saves for its backward exactly what PyTorch's saves."""

import numpy as np
import torch

import lucid


def assert_saves_like_torch(name, fn, wrt, vals):
    """Run ``fn`` over non-leaf copies of ``vals`` (those in ``wrt`` require grad) in torch
    and Lucid, write each input in place after the op, then backward: both must raise (the
    input was saved) or both give the same gradients."""
    for written in range(len(vals)):
        results = []
        for mod in (torch, lucid):
            leaves = [mod.tensor(v, requires_grad=i in wrt) for i, v in enumerate(vals)]
            ts = [x * 1 for x in leaves]  # non-leaves, so they can be written in place
            y = fn(ts)
            ts[written].add_(1.0)
            try:
                y.sum().backward()
            except RuntimeError:
                results.append(None)
                continue
            results.append([leaves[i].grad.numpy().copy() for i in wrt])
        tr, lr = results
        assert (tr is None) == (lr is None), (name, written, tr, lr)
        if tr is not None:
            for t, l in zip(tr, lr):
                np.testing.assert_allclose(l, t, rtol=1e-12)
