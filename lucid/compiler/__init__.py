"""``lucid.compile`` and ``lucid.compiler``: record a call once, replay it without Python
dispatch.

``lucid.compile(fn)`` (or ``@lucid.compile``, or ``lucid.compile(module)``, or
``module.compile()``) returns a callable that, on the first call of each *signature*
(:mod:`.guards`: shapes, dtypes, devices, ``requires_grad``, grad and autocast modes,
training flags, hyperparameters), runs ``fn`` eagerly while recording every array operation
it makes — op forwards, node backwards, the optimizer's kernels, ``.grad`` accumulation,
in-place writes (:mod:`.recorder`) — and on later calls of that signature replays the
recording (:mod:`.program`): a flat list of kernel calls over pre-bound buffers, with no
op dispatch, promotion, shape checks or autograd nodes. A whole training step (forward,
loss, ``backward()``, ``clip_grad_norm_``, ``optimizer.step()``, ``zero_grad()``) is one
recording; a compiled module's outputs keep a backward (one recorded program too).

What cannot be replayed is a *graph break*: a host read of a value (``.item()``, ``bool``,
``print``), an op whose output shape depends on values (``nonzero``), a hook, a custom
``autograd.Function``'s backward, a call of a :func:`disable` d function. That signature
then runs eagerly — with the same results — and :func:`stats` lists the cause and the
line; ``fullgraph=True`` raises :class:`~lucid.errors.CompileError` there instead.

Notes
-----
PyTorch's ``torch.compile`` traces Python bytecode (TorchDynamo) and generates kernels;
Lucid records the kernel stream of one eager run instead, so Python side effects other
than on tensors (appending to a list, printing a number) happen on the recorded call only,
and a Python number that changes between calls (a learning rate set by a scheduler) is a
new signature, recorded anew (up to ``cache_size_limit`` = 8 per function; after that the
function runs eagerly and ``stats()["cache_limit_hits"]`` counts it).
"""

from __future__ import annotations

import functools

from ..errors import ArgumentTypeError
from .api import ALL, STATS, CompiledFunction, _new_stats
from .recorder import ACTIVE

__all__ = [
    "compile",
    "reset",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "cudagraph_mark_step_begin",
    "stats",
    "CompiledFunction",
]


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
):
    """Compile ``model`` (a function or a :class:`~lucid.nn.Module`); without it, return a
    decorator. ``mode`` is one of None, ``"default"``, ``"reduce-overhead"``,
    ``"max-autotune"`` (on a GPU these two replay a whole step as one CUDA graph where it
    can: :mod:`.cudagraph`), ``"max-autotune-no-cudagraphs"``; ``backend`` and ``options`` are
    accepted for PyTorch compatibility (there is one backend: the recorder);
    ``dynamic=None``/``False``/``True`` all record one program per shape for now;
    ``disable=True`` returns ``model`` unchanged."""
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
        )
    if disable:
        return model
    opts = dict(fullgraph=fullgraph, dynamic=dynamic, mode=mode)
    make = getattr(model, "_compile_module", None)
    if make is not None:
        return make(**opts)
    if not callable(model):
        raise ArgumentTypeError(
            f"lucid.compile: expected a function or a Module, got {type(model).__name__}"
        )
    return CompiledFunction(model, **opts)


def reset():
    """Forget every recording of every compiled function and zero :func:`stats`."""
    for f in list(ALL):
        f.reset()
    STATS.clear()
    STATS.update(_new_stats())


def disable(fn=None, recursive=True):
    """Decorator: ``fn`` always runs eagerly; called inside a compiled function, it is a
    graph break (that call of the compiled function runs eagerly)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        rec = ACTIVE[0]
        if rec is not None:
            rec.graph_break(f"a call of {getattr(fn, '__qualname__', fn)}, marked disable()")
        return fn(*args, **kwargs)

    return eager


def is_compiling():
    """True while a compiled function's call is being recorded."""
    return ACTIVE[0] is not None


is_dynamo_compiling = is_compiling


def cudagraph_mark_step_begin():
    """Mark the start of a new step (PyTorch's CUDA-graph trees use it to know that the
    previous replay's outputs may be overwritten). Lucid's replays return new buffers each
    call, so nothing is overwritten: a no-op kept for compatibility."""


def stats():
    """A copy of the counters: ``calls``, ``captures`` (recordings made), ``replays``,
    ``eager_calls`` (calls run eagerly: graph breaks, cache limit), ``recompiles``
    (recordings beyond a function's first), ``cache_limit_hits``, ``graph_breaks`` (one
    dict per break: ``function``, ``reason``, ``where`` as ``file:line``),
    ``cudagraph_replays`` and ``cudagraph_fallbacks`` (why a program could not become a
    CUDA graph, :mod:`.cudagraph`)."""
    out = dict(STATS)
    out["graph_breaks"] = list(STATS["graph_breaks"])
    out["cudagraph_fallbacks"] = list(STATS["cudagraph_fallbacks"])
    return out
