"""Registry-suite samples for casts, copies and internal ops."""

import torch

import lucid

from ._sample import Sample, rnd


def _setitem_through_view(base, value):
    b = base * 1.0
    v = b.narrow(0, 1, 2)
    v.mul_(value)  # in-place on a view: the base is rebased (view_scatter)
    return b


def _copy_into(x, src):
    y = x * 1.0
    y.copy_(src)  # y keeps x's history (zero gradient) and takes src's
    return y * x


def _view_dtype_roundtrip(x):
    lib = lucid if isinstance(x, lucid.Tensor) else torch
    return x.view(lib.int64 if x.element_size() == 8 else lib.int32)


SAMPLES = [
    Sample("copy", _copy_into, (rnd(2, 3), rnd(3, seed=1)), torch_fn=_copy_into),
    Sample(
        "view_dtype",
        _view_dtype_roundtrip,
        (rnd(2, 3),),
        torch_fn=_view_dtype_roundtrip,
        grad=False,
    ),
    Sample(
        "cast",
        lambda x: x.to(lucid.float32).to(lucid.float64) * 1.0,
        (rnd(3),),
        torch_fn=lambda x: x.to(torch.float32).to(torch.float64) * 1.0,
        atol=1e-2,
        rtol=1e-2,
    ),
    Sample("clone", lucid.clone, (rnd(3, 2),), torch_fn=torch.clone),
    Sample(
        "sum_to_size",
        lambda x: x.sum_to_size(3, 1),
        (rnd(2, 3, 4),),
        torch_fn=lambda x: x.sum_to_size(3, 1),
    ),
    Sample(
        "view_scatter",
        lambda b, v: _setitem_through_view(b, v),
        (rnd(3, 2), rnd(2, seed=1)),
        torch_fn=lambda b, v: _setitem_through_view(b, v),
    ),
    Sample(
        "to_device",
        lambda x: lucid.ops.move(x, lucid.device("cpu")),
        (rnd(3),),
        torch_fn=lambda x: x * 1.0,
    ),
]
