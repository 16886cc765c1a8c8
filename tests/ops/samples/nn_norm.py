"""Registry-suite samples: the norms (batch, instance, layer, group, RMS)."""

import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Const, Sample, pos, rnd

_RM, _RV = rnd(3, seed=4), pos(3, seed=5)

SAMPLES = [
    Sample(
        "batch_norm",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        (rnd(4, 3, 5), pos(3), rnd(3)),
        torch_fn=lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
        name="batch_norm[train,3d]",
    ),
    Sample(
        "batch_norm",
        lambda x: F.batch_norm(x, None, None, training=True, eps=1e-3),
        (rnd(6, 3),),
        torch_fn=lambda x: TF.batch_norm(x, None, None, training=True, eps=1e-3),
        name="batch_norm[train,2d,no affine]",
    ),
    Sample(
        "batch_norm",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        (rnd(2, 3, 2, 3).transpose(0, 1, 3, 2), pos(3), rnd(3)),
        torch_fn=lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
        name="batch_norm[train,4d,transposed]",
    ),
    Sample(
        "batch_norm",
        lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False),
        (rnd(4, 3, 2), Const(_RM), Const(_RV), pos(3), rnd(3)),
        torch_fn=lambda x, m, v, w, b: TF.batch_norm(x, m.to(x.dtype), v.to(x.dtype), w, b),
        name="batch_norm[eval]",
    ),
    Sample(
        "instance_norm",
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        (rnd(2, 3, 5), pos(3), rnd(3)),
        torch_fn=lambda x, w, b: TF.instance_norm(x, weight=w, bias=b),
    ),
    Sample(
        "instance_norm",
        lambda x, m, v: F.instance_norm(x, m, v, use_input_stats=False),
        (rnd(2, 3, 2, 2), Const(_RM), Const(_RV)),
        torch_fn=lambda x, m, v: TF.instance_norm(
            x, m.to(x.dtype), v.to(x.dtype), use_input_stats=False
        ),
        name="instance_norm[running stats]",
    ),
    Sample(
        "layer_norm",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        (rnd(2, 3, 4), pos(4), rnd(4)),
        torch_fn=lambda x, w, b: TF.layer_norm(x, (4,), w, b),
    ),
    Sample(
        "layer_norm",
        lambda x, w: F.layer_norm(x, (3, 4), w, eps=1e-2),
        (rnd(2, 3, 4), pos(3, 4)),
        torch_fn=lambda x, w: TF.layer_norm(x, (3, 4), w, eps=1e-2),
        name="layer_norm[2 dims, weight only]",
    ),
    Sample(
        "layer_norm",
        lambda x, b: F.layer_norm(x, (5,), bias=b),
        (rnd(3, 5), rnd(5)),
        torch_fn=lambda x, b: TF.layer_norm(x, (5,), bias=b),
        name="layer_norm[bias only]",
    ),
    Sample(
        "layer_norm",
        lambda x: F.layer_norm(x, (4,)),
        (rnd(0, 4),),
        torch_fn=lambda x: TF.layer_norm(x, (4,)),
        name="layer_norm[empty batch]",
    ),
    Sample(
        "group_norm",
        lambda x, w, b: F.group_norm(x, 2, w, b),
        (rnd(2, 4, 3), pos(4), rnd(4)),
        torch_fn=lambda x, w, b: TF.group_norm(x, 2, w, b),
    ),
    Sample(
        "group_norm",
        lambda x: F.group_norm(x, 3),
        (rnd(2, 6),),
        torch_fn=lambda x: TF.group_norm(x, 3),
        name="group_norm[2d, no affine]",
    ),
    Sample(
        "rms_norm",
        lambda x, w: F.rms_norm(x, (4,), w),
        (rnd(3, 4), pos(4)),
        torch_fn=lambda x, w: TF.rms_norm(x, (4,), w),
    ),
    Sample(
        "rms_norm",
        lambda x: F.rms_norm(x, (3, 4), eps=1e-3),
        (rnd(2, 3, 4),),
        torch_fn=lambda x: TF.rms_norm(x, (3, 4), eps=1e-3),
        name="rms_norm[2 dims]",
    ),
]
