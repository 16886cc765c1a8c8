"""``lucid.ops.core.graph_ns``: the ``F`` of every gradient formula in graph mode. A formula
written once calls ``F.<kernel>(...)`` with the backend kernel's arguments, so each function
here must take exactly what the backend kernel of the same name takes, and compute what it
computes (on Tensors, recording a graph)."""

import inspect

import numpy as np
import pytest

import lucid
from lucid.backend.base import Backend
from lucid.ops import graph_ns


def _positional(params):
    """(kind, has default) of each parameter: the calling convention, names aside."""
    return [(p.kind, p.default is not inspect.Parameter.empty) for p in params]


@pytest.mark.parametrize("name", graph_ns.__all__)
def test_each_function_takes_the_backend_kernels_arguments(name):
    kernel = getattr(Backend, name, None)
    assert kernel is not None, f"graph_ns.{name} names no backend kernel"
    mine = list(inspect.signature(getattr(graph_ns, name)).parameters.values())
    theirs = list(inspect.signature(kernel).parameters.values())[1:]  # without self
    assert _positional(mine) == _positional(theirs), (
        f"graph_ns.{name}{inspect.signature(getattr(graph_ns, name))} does not take the "
        f"arguments of Backend.{name}{inspect.signature(kernel)}"
    )


def _arrays_and_tensors(*arrays):
    ts = [lucid.tensor(a, requires_grad=True) for a in arrays]
    return [t._data for t in ts], ts


# name -> (arguments: arrays become both a backend array and a Tensor that requires grad)
CASES = {
    "prod_others": lambda r: ((r.random((3, 4)) + 0.5) * (r.random((3, 4)) > 0.3), 1),
    "var_backward": lambda r: (r.random((3, 4)), r.random((3, 1)), (1,), 1),
    "logsumexp_backward": lambda r: (r.random((3, 4)), r.random((3, 1)) + 1, r.random((3, 1))),
    "reverse_cumsum": lambda r: (r.random((3, 4)), 1),
    "index_add_along": lambda r: (r.random((3, 1)), Idx(np.array([[0], [2], [1]])), 1, 4),
    "sinc_derivative": lambda r: (np.array([0.0, 0.5, -1.5, 2.0]),),
    "logit_derivative": lambda r: (np.array([-0.5, 0.0, 0.25, 1.0, 1.5]), None),
    "softmax_backward": lambda r: (r.random((2, 3)), r.random((2, 3)), 1),
    "pad_backward": lambda r: (r.random((4, 5)), ((1, 1), (2, 0)), "constant"),
    "unfold_backward": lambda r: (r.random((3, 2)), (4,), 0, 2, 1),
    "div_floor": lambda r: (r.random(4) * 5, r.random(4) + 0.5),
    "std_backward": lambda r: (
        r.random((3, 4)),
        np.array([[0.5], [0.0], [1.5]]),
        r.random((3, 1)),
        (1,),
        1,
    ),
    "cumprod_backward": lambda r: (
        np.array([[2.0, 0.0, 3.0, 0.0], [1.5, 2.0, 0.5, 4.0]]),
        np.array([[2.0, 0.0, 0.0, 0.0], [1.5, 3.0, 1.5, 6.0]]),
        r.random((2, 4)),
        1,
    ),
    "log_softmax_backward": lambda r: (np.log(np.array([[0.2, 0.3, 0.5]])), r.random((1, 3)), 1),
    "logcumsumexp_backward": lambda r: (
        np.array([0.5, 1.0, -2.0]),
        np.logaddexp.accumulate(np.array([0.5, 1.0, -2.0])),
        r.random(3),
        0,
    ),
    "segment_sum": lambda r: (r.random((5, 2)), Raw(np.array([2, 0, 3])), 0),
    "pad": lambda r: (r.random((3, 4)), ((1, 2), (0, 1)), "reflect", 0),
}
for _p in (0.5, 1, 2, 3, float("inf")):
    CASES[f"vector_norm_backward-{_p}"] = lambda r, p=_p: (
        np.array([[0.0, -1.5, 2.0], [0.0, 0.0, 0.0]]),
        np.array([[1.0], [0.0]]) * (2.0**0.5),
        r.random((2, 1)),
        p,
        (1,),
    )
CASES["cdist_backward-3"] = lambda r: (
    r.random((2, 3)),
    r.random((2, 4)),
    r.random((3, 4)),
    None,
    3.0,
)


class Idx:
    """An integer argument: the same array for the kernel, an int64 tensor for graph_ns."""

    def __init__(self, a):
        self.a = a


class Raw:
    """A param that is a backend array in both forms (the counts of ``segment_sum``)."""

    def __init__(self, a):
        self.a = a


@pytest.mark.parametrize("name", sorted(CASES))
def test_functions_compute_what_the_kernels_compute(name):
    args = CASES[name](np.random.default_rng(0))
    name = name.split("-")[0]
    be = lucid.tensor(1.0)._device._backend
    k_args, g_args = [], []
    for a in args:
        if isinstance(a, Idx):
            k_args.append(a.a)
            g_args.append(lucid.tensor(a.a))
        elif isinstance(a, Raw):
            arr = lucid.tensor(a.a)._data
            k_args.append(arr)
            g_args.append(arr)
        elif isinstance(a, np.ndarray):
            t = lucid.tensor(a, requires_grad=True)
            k_args.append(t._data)
            g_args.append(t)
        else:
            k_args.append(a)
            g_args.append(a)
    if name == "cdist_backward":  # the distances the forward made
        d = be.cdist(k_args[1], k_args[2], args[4], False)
        k_args[3], g_args[3] = d, lucid.tensor(d)
    want = getattr(be, name)(*k_args)
    got = getattr(graph_ns, name)(*g_args)
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    for w, t in zip(want, got):
        np.testing.assert_allclose(
            t.detach().numpy(), lucid.tensor(w).numpy(), rtol=1e-10, atol=1e-12
        )
