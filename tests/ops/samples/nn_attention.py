"""Registry-suite samples for scaled dot-product attention (the two fused ops)."""

import numpy as np
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn.functional as F
from lucid.ops.nn.attention import FlashAttentionBackward as _Flash
from lucid.ops.nn.attention import scaled_dot_product_attention as _sdpa

from ._sample import Const, Sample, rnd

_OP = "scaled_dot_product_attention"
_ROWS = np.array(
    [
        [True, False, True, True, False],
        [False, False, False, False, False],  # a fully masked row: zeros
        [True, True, False, True, True],
    ]
)
_BIAS = rnd(3, 5, seed=4)
_BIAS[0, 1] = -np.inf


def _sample(args, name, torch_fn=None, **kw):
    return Sample(
        _OP,
        lambda *a: F.scaled_dot_product_attention(*a, **kw),
        args,
        torch_fn=torch_fn or (lambda *a: TF.scaled_dot_product_attention(*a, **kw)),
        name=f"{_OP}[{name}]",
    )


def _flash(args, name, scale=0.5, is_causal=False, groups=1, rows=None):
    """The flash op called directly (the CPU backend takes the P-saving op); ``rows`` a
    boolean mask, a fourth array in ``args`` a constant float mask."""
    kw = dict(scale=scale, is_causal=is_causal, enable_gqa=groups > 1)

    def fn(*a):
        allowed = None if rows is None else lucid.tensor(rows, device=a[0].device)._data
        return _Flash.apply(*a, allowed=allowed, scale=scale, causal=is_causal, groups=groups)

    def torch_fn(q, k, v, bias=None):
        mask = (
            torch.from_numpy(rows)
            if rows is not None
            else None
            if bias is None
            else bias.to(q.dtype)
        )
        return TF.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)

    return Sample("flash_attention", fn, args, torch_fn=torch_fn, name=f"flash_attention[{name}]")


SAMPLES = [
    _sample((rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 6, seed=2)), "3d, S != L, Ev != E"),
    _sample(
        (rnd(1, 2, 4, 3), rnd(1, 2, 6, 3, seed=1), rnd(1, 2, 6, 2, seed=2)),
        "causal, L < S",
        is_causal=True,
    ),
    _sample(
        (rnd(2, 5, 3), rnd(2, 3, 3, seed=1), rnd(2, 3, 2, seed=2)), "causal, L > S", is_causal=True
    ),
    _sample(
        (rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 2, seed=2), Const(_ROWS)),
        "bool mask, a fully masked row",
    ),
    _sample(
        (rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 2, seed=2), _BIAS),
        "float mask with -inf, its gradient",
    ),
    _sample(
        (rnd(1, 4, 3, 2), rnd(1, 2, 5, 2, seed=1), rnd(1, 2, 5, 3, seed=2)),
        "gqa, scale",
        scale=0.7,
        enable_gqa=True,
    ),
    _sample(
        (rnd(2, 1, 3, 4), rnd(1, 2, 5, 4, seed=1), rnd(1, 2, 5, 2, seed=2)), "broadcast batch dims"
    ),
    Sample(
        _OP,
        lambda q, k, v: _sdpa(q, k, v, need_weights=True),
        (rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 2, seed=2)),
        name=f"{_OP}[with the weights output]",
    ),
    _flash((rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 6, seed=2)), "3d, S != L, Ev != E"),
    _flash(
        (rnd(1, 2, 5, 3), rnd(1, 2, 3, 3, seed=1), rnd(1, 2, 3, 2, seed=2)),
        "causal, L > S",
        is_causal=True,
    ),
    _flash(
        (rnd(1, 4, 3, 2), rnd(1, 2, 5, 2, seed=1), rnd(1, 2, 5, 3, seed=2)),
        "gqa, broadcast batch",
        groups=2,
    ),
    _flash(
        (rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 2, seed=2)),
        "bool mask, a fully masked row",
        rows=_ROWS,
    ),
    _flash(
        (rnd(2, 3, 4), rnd(2, 5, 4, seed=1), rnd(2, 5, 2, seed=2), Const(_BIAS)),
        "constant float mask with -inf",
    ),
]
