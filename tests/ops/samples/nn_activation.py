"""Registry-suite samples: the fused activation ops (GELU exact and tanh, SiLU, hardtanh,
leaky ReLU, hardsigmoid) and the backward ops of the piecewise-linear ones."""

import numpy as np
import torch
import torch.nn.functional as TF

import lucid
import lucid.nn.functional as F

from ._sample import Sample, rnd

_X = rnd(3, 4, low=-4, high=4)
_X7 = rnd(3, 4, low=-1, high=7)  # relu6's two kinks inside


def _first_grad(name, **kw):
    """``x -> d(sum f(x) * w)/dx`` with create_graph for the activation ``name`` of
    ``nn.functional``: its backward op as a function of ``x``."""

    def first(x):
        lib = lucid if isinstance(x, lucid.Tensor) else torch
        w = lib.tensor(rnd(*x.shape, seed=5), dtype=x.dtype)
        with lib.enable_grad():
            x = x if x.requires_grad else x.detach().requires_grad_()
            (g,) = lib.autograd.grad(
                getattr(lib.nn.functional, name)(x, **kw), x, w, create_graph=True
            )
        return g

    return first


SAMPLES = [
    Sample("gelu", F.gelu, (_X,), torch_fn=TF.gelu),
    Sample(
        "gelu",
        lambda x: F.gelu(x, approximate="tanh"),
        (_X,),
        torch_fn=lambda x: TF.gelu(x, approximate="tanh"),
        name="gelu[tanh]",
    ),
    Sample("gelu", F.gelu, (np.array(0.7),), torch_fn=TF.gelu, name="gelu[0-d]"),
    Sample("gelu", F.gelu, (rnd(4, 3).T,), torch_fn=TF.gelu, name="gelu[transposed]"),
    Sample("gelu", F.gelu, (rnd(0, 3),), torch_fn=TF.gelu),
    Sample("silu", F.silu, (_X,), torch_fn=TF.silu),
    Sample(
        "silu",
        F.silu,
        (np.array([-30.0, -1.0, 0.0, 2.0, 30.0]),),
        torch_fn=TF.silu,
        name="silu[saturated]",
    ),
    Sample("hardtanh", F.hardtanh, (_X * 0.5,), torch_fn=TF.hardtanh),
    Sample("hardtanh", F.relu6, (_X7,), torch_fn=TF.relu6, name="hardtanh[relu6]"),
    Sample(
        "hardtanh",
        F.hardtanh,
        (np.array(0.3),),
        {"min_val": -0.5, "max_val": 2.0},
        torch_fn=TF.hardtanh,
        name="hardtanh[0-d]",
    ),
    Sample("leaky_relu", F.leaky_relu, (_X,), torch_fn=TF.leaky_relu),
    Sample(
        "leaky_relu",
        F.leaky_relu,
        (rnd(4, 3).T,),
        {"negative_slope": 0.2},
        torch_fn=TF.leaky_relu,
        name="leaky_relu[transposed]",
    ),
    # hardsigmoid's gradient has no derivative (PyTorch's neither); no parity sample:
    # PyTorch's CPU kernel scales the gradient by float32(1/6) even in float64
    # (tests/test_regressions_issue24.py compares it at float32 precision)
    Sample("hardsigmoid", F.hardsigmoid, (_X,), gradgrad=False),
    Sample("relu_backward", _first_grad("relu"), (_X,), torch_fn=_first_grad("relu")),
    Sample("hardtanh_backward", _first_grad("relu6"), (_X7,), torch_fn=_first_grad("relu6")),
    Sample(
        "leaky_relu_backward",
        _first_grad("leaky_relu", negative_slope=0.1),
        (_X,),
        torch_fn=_first_grad("leaky_relu", negative_slope=0.1),
    ),
    Sample("hardsigmoid_backward", _first_grad("hardsigmoid"), (_X,), grad=False),
]
