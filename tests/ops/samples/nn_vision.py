"""Registry-suite samples: interpolate and grid_sample (and their internal backward ops)."""

import torch.nn.functional as TF

import lucid.nn.functional as F
from lucid.ops.nn.vision import InterpolateGradBackward

from ._sample import Sample, rnd


def _interp(x, name, **kw):
    return Sample(
        "interpolate",
        lambda t: F.interpolate(t, **kw),
        (x,),
        torch_fn=lambda t: TF.interpolate(t, **kw),
        name=f"interpolate[{name}]",
    )


def _grid(shape, seed):
    return rnd(*shape, seed=seed, low=-1.2, high=1.2)


def _gs(x, grid, name, **kw):
    kw.setdefault("align_corners", False)
    return Sample(
        "grid_sample",
        lambda a, g: F.grid_sample(a, g, **kw),
        (x, grid),
        torch_fn=lambda a, g: TF.grid_sample(a, g, **kw),
        name=f"grid_sample[{name}]",
    )


SAMPLES = [
    _interp(rnd(2, 3, 5), "nearest-1d", size=8, mode="nearest"),
    _interp(rnd(2, 2, 4, 5), "nearest-exact-down", size=(3, 2), mode="nearest-exact"),
    _interp(rnd(2, 3, 6), "linear-scale", scale_factor=1.7, mode="linear"),
    _interp(rnd(1, 2, 4, 5), "bilinear-ac", size=(7, 3), mode="bilinear", align_corners=True),
    _interp(rnd(1, 2, 4, 4), "bicubic", scale_factor=1.5, mode="bicubic"),
    _interp(rnd(1, 2, 3, 4, 3), "trilinear", size=(4, 3, 5), mode="trilinear"),
    _interp(rnd(1, 2, 9, 7), "bilinear-antialias", size=(4, 9), mode="bilinear", antialias=True),
    _interp(
        rnd(1, 2, 9, 7),
        "bicubic-antialias",
        size=(3, 5),
        mode="bicubic",
        antialias=True,
        align_corners=True,
    ),
    Sample(
        "interpolate_backward",
        lambda g: InterpolateGradBackward.call(
            g, in_size=(4, 5), mode="linear", align_corners=False, scales=(None, None)
        ),
        (rnd(1, 2, 7, 3),),
        name="interpolate_backward[bilinear]",
    ),
    Sample(
        "interpolate_backward",
        lambda g: InterpolateGradBackward.call(
            g, in_size=(5,), mode="cubic", align_corners=True, scales=(None,)
        ),
        (rnd(2, 2, 8),),
        name="interpolate_backward[cubic-1d]",
    ),
    _gs(rnd(2, 3, 4, 5), _grid((2, 3, 2, 2), 1), "bilinear-zeros"),
    _gs(
        rnd(1, 2, 4, 5),
        _grid((1, 2, 3, 2), 2),
        "bilinear-border-ac",
        padding_mode="border",
        align_corners=True,
    ),
    _gs(
        rnd(1, 2, 3, 4),
        _grid((1, 3, 3, 2), 3) * 1.5,
        "bilinear-reflection",
        padding_mode="reflection",
    ),
    _gs(rnd(1, 2, 4, 4), _grid((1, 2, 2, 2), 4), "bicubic-zeros", mode="bicubic"),
    _gs(
        rnd(1, 2, 4, 4),
        _grid((1, 2, 2, 2), 5) * 1.4,
        "bicubic-reflection-ac",
        mode="bicubic",
        padding_mode="reflection",
        align_corners=True,
    ),
    _gs(rnd(1, 2, 3, 3, 4), _grid((1, 2, 2, 2, 3), 6), "trilinear-border", padding_mode="border"),
    _gs(rnd(1, 2, 4, 5), _grid((1, 3, 2, 2), 7), "nearest", mode="nearest"),
]
