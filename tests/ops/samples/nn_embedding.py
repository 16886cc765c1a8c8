"""Registry-suite samples: embedding and embedding_bag. padding_idx and
scale_grad_by_freq make the gradient deliberately not the derivative (no gradcheck there:
tests/nn/test_sparse.py compares it with torch's, eager and graph mode)."""

import numpy as np
import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Sample, rnd

_IDX = np.array([[0, 1, 5], [2, 2, 3]])
_FLAT = np.array([1, 2, 4, 4, 3, 0])
_OFF = np.array([0, 2, 2, 4])

SAMPLES = [
    Sample(
        "embedding",
        lambda w, i: F.embedding(i, w),
        (rnd(6, 3), _IDX),
        torch_fn=lambda w, i: TF.embedding(i, w),
        complex=False,
    ),  # torch has no complex embedding autograd: tests/test_complex.py
    Sample(
        "embedding",
        lambda w, i: F.embedding(i, w, padding_idx=2, scale_grad_by_freq=True),
        (rnd(6, 3), _IDX),
        torch_fn=lambda w, i: TF.embedding(i, w, padding_idx=2, scale_grad_by_freq=True),
        name="embedding[padding_idx, scale_grad_by_freq]",
        grad=False,
    ),
    Sample(
        "embedding_bag",
        lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"),
        (rnd(5, 3), _FLAT, _OFF),
        torch_fn=lambda w, i, o: TF.embedding_bag(i, w, o, mode="mean"),
        name="embedding_bag[mean]",
    ),
    Sample(
        "embedding_bag",
        lambda w, i, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
        (rnd(5, 3), _IDX % 5, rnd(2, 3)),
        torch_fn=lambda w, i, p: TF.embedding_bag(i, w, mode="sum", per_sample_weights=p),
        name="embedding_bag[sum, per_sample_weights]",
    ),
    Sample(
        "embedding_bag",
        lambda w, i, o: F.embedding_bag(i, w, o, mode="max"),
        (rnd(5, 3), _FLAT, _OFF),
        torch_fn=lambda w, i, o: TF.embedding_bag(i, w, o, mode="max"),
        name="embedding_bag[max]",
    ),
    Sample(
        "embedding_bag",
        lambda w, i, o: F.embedding_bag(i, w, o, mode="sum", padding_idx=4),
        (rnd(5, 3), _FLAT, _OFF),
        torch_fn=lambda w, i, o: TF.embedding_bag(i, w, o, mode="sum", padding_idx=4),
        name="embedding_bag[sum, padding_idx]",
    ),
]
