"""Registry-suite samples for shape ops and views."""

import numpy as np
import torch
import torch.nn.functional as F

import lucid
from lucid.ops.shape.padding import PadGradBackward
from lucid.ops.shape.repeats import SegmentSumBackward
from lucid.ops.shape.views import UnfoldGradBackward

from ._sample import Const, Sample, rnd


def _same(op, lfn, args, tfn=None, **kw):
    """A sample whose Lucid and torch calls are spelled the same."""
    return Sample(op, lfn, args, torch_fn=lfn if tfn is None else tfn, **kw)


def _pad(mode, pads):
    return _same(
        "pad",
        lambda x: lucid.pad(x, pads, mode=mode),
        (rnd(2, 3, 4),),
        lambda x: F.pad(x, pads, mode=mode),
        name=f"pad[{mode},{pads}]",
    )


_COUNTS = np.array([2, 0, 3])

SAMPLES = [
    _same("view", lambda x: x.view(4, 3), (rnd(3, 4),)),
    _same("view", lambda x: x.unsqueeze(-1).squeeze(0), (rnd(1, 3),), name="squeeze"),
    _same("view", lambda x: x.flatten(1), (rnd(2, 3, 2),), name="flatten"),
    _same("view", lambda x: x.unflatten(1, (2, -1)), (rnd(2, 6),), name="unflatten"),
    _same("reshape", lambda x: x.transpose(0, 1).reshape(-1), (rnd(3, 4),)),
    _same("expand", lambda x: x.expand(2, 3, 4), (rnd(3, 1),)),
    _same(
        "expand",
        lambda x, y: torch_or_lucid(x).broadcast_tensors(x, y)[0],
        (rnd(3, 1), rnd(1, 4)),
        name="broadcast_tensors",
    ),
    _same("permute", lambda x: x.permute(2, 0, 1), (rnd(2, 3, 4),)),
    _same("permute", lambda x: x.movedim((0, -1), (-1, 1)), (rnd(2, 3, 4),), name="movedim"),
    _same("permute", lambda x: x.mT, (rnd(2, 3, 4),), name="mT"),
    _same("narrow", lambda x: x.narrow(1, 1, 2), (rnd(3, 4),)),
    _same("select", lambda x: x.select(1, -1), (rnd(3, 4),)),
    _same("as_strided", lambda x: (x * 1).as_strided((3, 2), (1, 2), 1), (rnd(2, 4),)),
    _same(
        "as_strided",
        lambda x: (x * 1).as_strided((2, 2), (1, 1)),
        (rnd(5),),
        name="as_strided-overlap",
    ),
    _same("select", lambda x: x.select(0, 2), (rnd(3),), name="select-1d"),
    _same("narrow", lambda x: x.narrow(-1, -3, 2).narrow(0, 0, 1), (rnd(3, 4),), name="narrow2"),
    _same("diagonal", lambda x: x.diagonal(), (rnd(3, 4),)),
    _same("diagonal", lambda x: x.diagonal(-1, 2, 0), (rnd(3, 2, 4),), name="diagonal-off"),
    _same("unfold", lambda x: x.unfold(1, 3, 1), (rnd(2, 5),)),
    _same("unfold", lambda x: x.unfold(0, 2, 3), (rnd(7, 2),), name="unfold-gap"),
    Sample(
        "unfold_backward",
        lambda g: UnfoldGradBackward.call(g, shape=(2, 5), dim=1, size=3, step=1),
        (rnd(2, 3, 3),),
        torch_fn=lambda g: torch.ops.aten.unfold_backward(g, [2, 5], 1, 3, 1),
    ),
    _same("flip", lambda x: x.flip(0, -1), (rnd(2, 3, 4),)),
    _same("flip", lambda x: x.rot90(1, (0, 1)), (rnd(2, 3),), name="rot90"),
    _same("roll", lambda x: x.roll((1, -2), (0, 1)), (rnd(3, 4),)),
    _same("roll", lambda x: x.roll(2), (rnd(3, 4),), name="roll-flat"),
    _same("repeat", lambda x: x.repeat(2, 1, 3), (rnd(2, 3),)),
    _same("repeat", lambda x: x.tile((2,)), (rnd(2, 3),), name="tile"),
    _same("repeat_interleave", lambda x: x.repeat_interleave(2, dim=1), (rnd(2, 3),)),
    _same(
        "repeat_interleave",
        lambda x, r: x.repeat_interleave(r, dim=0),
        (rnd(3, 2), Const(_COUNTS)),
        name="repeat_interleave-counts",
    ),
    Sample(
        "segment_sum",
        lambda x: SegmentSumBackward.call(x, counts=x._device.backend.asarray(_COUNTS), dim=0),
        (rnd(5, 2),),
        torch_fn=lambda x: torch.segment_reduce(
            x, "sum", lengths=torch.from_numpy(_COUNTS), axis=0
        ),
        complex=False,
    ),  # torch.segment_reduce has no complex kernel
    _pad("constant", (1, 2, 0, 1)),
    _pad("constant", (-1, 2, 1, -1)),
    _pad("reflect", (2, 1, 1, 2)),
    _pad("replicate", (2, 1, 0, 3)),
    _pad("circular", (3, 1, 1, 2)),
    _pad("reflect", (-1, 2)),
    Sample(
        "pad_backward",
        lambda g: PadGradBackward.call(g, pads=((0, 0), (2, 1), (1, 2)), mode="reflect"),
        (rnd(2, 6, 7),),
        name="pad_backward[reflect]",
    ),
    Sample(
        "pad_backward",
        lambda g: PadGradBackward.call(g, pads=((1, -1), (2, 1)), mode="replicate"),
        (rnd(3, 6),),
        name="pad_backward[replicate]",
    ),
    Sample(
        "pad_backward",
        lambda g: PadGradBackward.call(g, pads=((0, 0), (2, 3)), mode="circular"),
        (rnd(3, 8),),
        name="pad_backward[circular]",
    ),
]


def torch_or_lucid(x):
    """The module (torch or lucid) a tensor comes from, to spell a free function once."""
    return torch if isinstance(x, torch.Tensor) else lucid
