r"""cuDNN through NVIDIA's cuDNN frontend (``nvidia-cudnn-frontend``, import name ``cudnn``).

The frontend builds cuDNN *graphs* (an operation, the layouts of its tensors, a plan chosen
by cuDNN's heuristics) and runs them on raw device pointers, so CuPy arrays need no
framework between them and cuDNN. A graph is built once per key (the op, shapes, element
strides, dtype and flags) and kept with its workspace size; a key cuDNN refuses is
remembered as refused, so a shape costs the build attempt once. One cuDNN handle per device,
set to CuPy's current stream before each run (a capture in progress records the run like
any kernel; a graph is never *built* inside a capture: a miss there takes Lucid's own
kernels).

Optional: without the frontend (or libcudnn), with ``lucid.backends.cudnn.enabled`` off, or
for a call cuDNN does not take, the caller runs Lucid's own kernels. What the last call of
each op took is in ``lucid.backends.cudnn.chosen()``; the frontend is loaded there too
(``lucid.backends.cudnn.frontend``).

Attention (:func:`sdpa_forward`, :func:`sdpa_backward`): float16/bfloat16 with float32
softmax, ``q (B, H, L, E)``, ``k (B, H_kv, S, E)``, ``v (B, H_kv, S, E_v)`` (grouped heads:
:math:`H_{kv} \mid H`), the scale, the top-left causal mask and an additive bias of shape
``(1|B, 1|H, L, S)``; the softmax statistics :math:`\ell_i = m_i + \log l_i` (float32,
natural log) are what Lucid's flash kernels save, so either backward takes either
forward's.
"""

from __future__ import annotations

import cupy
import ml_dtypes
import numpy as np

from ... import backends
from ..._state import STATE
from . import graphs
from .kernels import empty

__all__ = ["usable", "sdpa_forward", "sdpa_backward"]

_HANDLES: dict = {}  # device ordinal -> cudnn.Handle
_GRAPHS: dict = {}  # key -> _Graph, or None where cuDNN refused it
CHOSEN = backends.cudnn.CHOSEN
frontend = backends.cudnn.frontend


def usable():
    """Whether calls may take cuDNN now: the switch on and the frontend loaded."""
    return backends.cudnn.enabled and frontend() is not None


def _dtype(mod, dt):
    return {
        np.dtype(np.float16): mod.data_type.HALF,
        np.dtype(ml_dtypes.bfloat16): mod.data_type.BFLOAT16,
        np.dtype(np.float32): mod.data_type.FLOAT,
    }[np.dtype(dt)]


def _layout(a):
    """``(shape, element strides)`` of array ``a``, a dim of size 1 given the stride it
    would have if packed (cuDNN refuses the 0 stride of a broadcast one)."""
    shape, strides = tuple(a.shape), [s // a.itemsize for s in a.strides]
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] == 1:
            strides[i] = strides[i + 1] * shape[i + 1] if i + 1 < len(shape) else 1
    return shape, tuple(strides)


def _handle(mod):
    dev = cupy.cuda.runtime.getDevice()
    h = _HANDLES.get(dev)
    if h is None:
        h = _HANDLES[dev] = mod.create_handle()
    mod.set_stream(h, cupy.cuda.get_current_stream().ptr)
    return h


class _Graph:
    """A built cuDNN graph: its tensors in the order a call passes its arrays, and the
    workspace it needs."""

    __slots__ = ("graph", "tensors", "workspace")

    def __init__(self, graph, tensors):
        self.graph, self.tensors = graph, tensors
        self.workspace = graph.get_workspace_size()

    def __call__(self, mod, arrays):
        ws = empty((max(self.workspace, 1),), np.uint8)
        pack = {t: a.data.ptr for t, a in zip(self.tensors, arrays) if t is not None}
        self.graph.execute(pack, ws.data.ptr, handle=_handle(mod))


def _graph(key, build):
    """The cached graph of ``key``, built by ``build(mod, handle)`` on a miss (never inside
    a capture); None where cuDNN refuses it (or a capture is in progress)."""
    if key in _GRAPHS:
        return _GRAPHS[key]
    if graphs.stream_capturing():
        return None
    mod = frontend()
    try:
        g = _Graph(*build(mod, _handle(mod)))
    except Exception:  # noqa: BLE001 (cudnnGraphNotSupportedError, a refused layout: fall back)
        g = None
    _GRAPHS[key] = g
    return g


def _new_graph(mod, handle, dt):
    f32 = mod.data_type.FLOAT
    return mod.pygraph(
        io_data_type=_dtype(mod, dt),
        intermediate_data_type=f32,
        compute_data_type=f32,
        handle=handle,
    )


def _inputs(g, names, arrays):
    return [
        None if a is None else g.tensor(dim=list(a.shape), stride=list(_layout(a)[1]), name=n)
        for n, a in zip(names, arrays)
    ]


def _output(t, a, dtype=None):
    t.set_output(True).set_dim(list(a.shape)).set_stride(list(_layout(a)[1]))
    if dtype is not None:
        t.set_data_type(dtype)


def _refuse(op, why):
    CHOSEN[op] = f"lucid ({why})"
    return None


def _check(q, k, v, bias, allowed):
    """Why cuDNN's attention cannot take these 4-D operands, or None."""
    if not usable():
        return "no cuDNN frontend" if backends.cudnn.enabled else "lucid.backends.cudnn off"
    if allowed is not None:  # (Lucid's kernels give a fully masked row PyTorch's result)
        return "a boolean mask"
    if q.dtype not in (np.float16, ml_dtypes.bfloat16):
        return f"dtype {q.dtype}: cuDNN attention takes float16 and bfloat16"
    if bias is not None and (bias.dtype != q.dtype or 0 in bias.strides[-2:]):
        return "a bias broadcast along queries or keys, or of another dtype"
    for a in (q, k, v) + (() if bias is None else (bias,)):
        if a.strides[-1] != a.itemsize or a.data.ptr % 16 or any(s % 16 for s in a.strides[:-1]):
            return "operands not 16-byte aligned with unit feature stride"
    for a in (q, k, v):
        if any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
            return "a query, key or value broadcast along a dim"
    return None


def _bias4(bias):
    """The bias with broadcast batch or head dims as dims of 1 (cuDNN takes no 0 stride)."""
    if bias is None:
        return None
    idx = tuple(slice(0, 1) if s == 0 else slice(None) for s in bias.strides[:2])
    return bias[idx]


def sdpa_forward(q, k, v, bias, allowed, scale, causal, alloc):
    """Attention of the 4-D operands into ``(out (B, H, L, E_v), lse (B, H, L))`` (float32
    lse) made by ``alloc()``; None where cuDNN does not take the call."""
    why = _check(q, k, v, bias, allowed)
    if why is not None:
        return _refuse("attention_forward", why)
    out, lse = alloc()
    bias = _bias4(bias)
    stats = lse[..., None]
    arrays = (q, k, v, bias, out, stats)
    key = (
        "sdpa",
        tuple(_layout(a) if a is not None else None for a in arrays),
        q.dtype,
        float(scale),
        bool(causal),
    )

    def build(mod, handle):
        g = _new_graph(mod, handle, q.dtype)
        tq, tk, tv, tb = _inputs(g, ("q", "k", "v", "bias"), arrays[:4])
        o, st = g.sdpa(
            q=tq,
            k=tk,
            v=tv,
            bias=tb,
            attn_scale=float(scale),
            use_causal_mask=bool(causal),
            generate_stats=True,
            name="sdpa",
        )
        _output(o, out)
        _output(st, stats, mod.data_type.FLOAT)
        g.build([mod.heur_mode.A, mod.heur_mode.FALLBACK])
        return g, (tq, tk, tv, tb, o, st)

    g = _graph(key, build)
    if g is None:
        return _refuse("attention_forward", "cuDNN refused the graph")
    g(frontend(), arrays)
    CHOSEN["attention_forward"] = "cudnn"
    return out, lse


def sdpa_backward(q, k, v, bias, allowed, out, go, lse, scale, causal, alloc):
    """The gradients of :func:`sdpa_forward` into ``(dq, dk, dv)`` (the operands' dtype)
    made by ``alloc()``; None where cuDNN does not take the call."""
    why = _check(q, k, v, bias, allowed) or (
        None
        if go.strides[-1] == go.itemsize and out.strides[-1] == out.itemsize
        else "output or gradient without unit feature stride"
    )
    if why is not None:
        return _refuse("attention_backward", why)
    dq, dk, dv = alloc()
    bias = _bias4(bias)
    stats = lse[..., None]
    det = bool(STATE.deterministic)
    arrays = (q, k, v, out, go, stats, bias, dq, dk, dv)
    key = (
        "sdpa_bwd",
        tuple(_layout(a) if a is not None else None for a in arrays),
        q.dtype,
        float(scale),
        bool(causal),
        det,
    )

    def build(mod, handle):
        g = _new_graph(mod, handle, q.dtype)
        tq, tk, tv, to, tg, tb = _inputs(
            g, ("q", "k", "v", "o", "dO", "bias"), arrays[:5] + arrays[6:7]
        )
        ts = g.tensor(
            dim=list(stats.shape),
            stride=list(_layout(stats)[1]),
            data_type=mod.data_type.FLOAT,
            name="stats",
        )
        gq, gk, gv = g.sdpa_backward(
            q=tq,
            k=tk,
            v=tv,
            o=to,
            dO=tg,
            stats=ts,
            bias=tb,
            attn_scale=float(scale),
            use_causal_mask=bool(causal),
            use_deterministic_algorithm=det,
            name="sdpa_bwd",
        )
        for t, a in ((gq, dq), (gk, dk), (gv, dv)):
            _output(t, a)
        g.build([mod.heur_mode.A, mod.heur_mode.FALLBACK])
        return g, (tq, tk, tv, to, tg, ts, tb, gq, gk, gv)

    g = _graph(key, build)
    if g is None:
        return _refuse("attention_backward", "cuDNN refused the graph")
    g(frontend(), arrays)
    CHOSEN["attention_backward"] = "cudnn"
    return dq, dk, dv
