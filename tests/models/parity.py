"""What the parity tests against transformers share: the closeness check, a state dict
as Lucid tensors, and transformers' own greedy generation."""

import numpy as np

import lucid


def close(a, b, rtol=1e-4, floor=0.0):
    """Within ``rtol`` of ``b``'s largest magnitude (or of ``floor``, for a gradient that
    is zero but for rounding: a key bias's, as softmax ignores a shift of every score)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert np.abs(a - b).max() <= rtol * max(np.abs(b).max(), floor), np.abs(a - b).max()


def lucid_state(module, skip=()):
    """``module.state_dict()`` (a torch module) as Lucid tensors, keys ending in ``skip``
    left out."""
    return {
        k: lucid.from_numpy(v.detach().numpy().copy())
        for k, v in module.state_dict().items()
        if not (skip and k.endswith(skip))
    }


def hf_greedy(hf, ids, n):
    """transformers' greedy ``generate`` of ``n`` tokens after ``ids`` (no padding)."""
    import torch

    with torch.no_grad():
        return hf.generate(
            torch.from_numpy(ids),
            max_new_tokens=n,
            do_sample=False,
            pad_token_id=0,
            attention_mask=torch.ones(ids.shape, dtype=torch.long),
        ).numpy()
