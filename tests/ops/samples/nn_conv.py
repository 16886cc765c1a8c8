"""Registry-suite samples: convolution ops (N-d, transposed, groups, dilation), im2col and
col2im."""

import torch.nn.functional as TF

import lucid.nn.functional as F

from ._sample import Sample, rnd

SAMPLES = [
    Sample(
        "convolution",
        lambda x, w, b: F.conv2d(x, w, b, (2, 1), (1, 0), (1, 2), 2),
        (rnd(2, 4, 5, 6), rnd(6, 2, 3, 2, seed=1), rnd(6, seed=2)),
        torch_fn=lambda x, w, b: TF.conv2d(x, w, b, (2, 1), (1, 0), (1, 2), 2),
        name="conv2d[stride, padding, dilation, groups, bias]",
    ),
    Sample(
        "convolution",
        lambda x, w: F.conv1d(x, w, padding="same"),
        (rnd(2, 3, 7), rnd(4, 3, 4, seed=1)),
        torch_fn=lambda x, w: TF.conv1d(x, w, padding="same"),
        name="conv1d[same, even kernel]",
    ),
    Sample(
        "convolution",
        lambda x, w, b: F.conv3d(x, w, b, 1, 1),
        (rnd(1, 2, 3, 4, 3), rnd(3, 2, 2, 3, 2, seed=1), rnd(3, seed=2)),
        torch_fn=lambda x, w, b: TF.conv3d(x, w, b, 1, 1),
        name="conv3d[padding]",
    ),
    Sample(
        "convolution",
        lambda x, w: F.conv2d(x, w),
        (rnd(3, 4, 5, 2).transpose(2, 1, 3, 0), rnd(2, 4, 2, 2, seed=1)),
        torch_fn=lambda x, w: TF.conv2d(x, w),
        name="conv2d[non-contiguous]",
    ),
    Sample(
        "conv_transpose",
        lambda x, w, b: F.conv_transpose2d(x, w, b, (2, 3), (0, 1), (1, 2), 2, (1, 2)),
        (rnd(2, 4, 3, 3), rnd(4, 3, 3, 2, seed=1), rnd(6, seed=2)),
        torch_fn=lambda x, w, b: TF.conv_transpose2d(x, w, b, (2, 3), (0, 1), (1, 2), 2, (1, 2)),
        name="conv_transpose2d[output_padding, groups, dilation]",
    ),
    Sample(
        "conv_transpose",
        lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1),
        (rnd(2, 3, 4), rnd(3, 2, 3, seed=1)),
        torch_fn=lambda x, w: TF.conv_transpose1d(x, w, stride=2, padding=1),
        name="conv_transpose1d[stride, padding]",
    ),
    Sample(
        "conv_transpose",
        lambda x, w: F.conv_transpose3d(x, w, stride=2),
        (rnd(1, 2, 2, 3, 2), rnd(2, 2, 2, 2, 2, seed=1)),
        torch_fn=lambda x, w: TF.conv_transpose3d(x, w, stride=2),
        name="conv_transpose3d[stride]",
    ),
    Sample(
        "im2col",
        lambda x: F.unfold(x, (2, 3), 2, 1, (2, 1)),
        (rnd(2, 2, 5, 6),),
        torch_fn=lambda x: TF.unfold(x, (2, 3), 2, 1, (2, 1)),
    ),
    Sample(
        "col2im",
        lambda c: F.fold(c, (4, 5), (2, 3), 1, 1, (2, 1)),
        (rnd(2, 12, 15),),
        torch_fn=lambda c: TF.fold(c, (4, 5), (2, 3), 1, 1, (2, 1)),
    ),
]
