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

Convolution (:func:`conv_forward`, :func:`conv_backward_input`,
:func:`conv_backward_weight`: cuDNN's fprop, dgrad and wgrad graphs): float32, float16 and
bfloat16 operands of 1, 2 or 3 spatial dims (one as two over a height of 1), PyTorch's
geometry (per-dim stride, dilation and ``(lo, hi)`` padding as cuDNN's pre- and
post-padding; groups from the channel counts), 16-byte aligned, computing in float32. The
plan comes from cuDNN's heuristics, less the engines the switches rule out
(:func:`_plans`: TF32 for float32 unless ``allow_tf32``; non-deterministic ones where
deterministic algorithms are asked for; never those that round inputs below their dtype),
or, with ``lucid.backends.cudnn.benchmark``, is the fastest of the candidates timed once on
the first call of a shape (:func:`_fastest`).
"""

from __future__ import annotations

import cupy
import ml_dtypes
import numpy as np

from ... import backends
from ..._state import STATE
from . import graphs
from .kernels import empty

__all__ = [
    "usable",
    "sdpa_forward",
    "sdpa_backward",
    "conv_forward",
    "conv_backward_input",
    "conv_backward_weight",
]

_HANDLES: dict = {}  # device ordinal -> [cudnn.Handle, its raw handle, the bound stream]
_GRAPHS: dict = {}  # key -> _Graph, or None where cuDNN refused it
CHOSEN = backends.cudnn.CHOSEN
frontend = backends.cudnn.frontend


def usable():
    """Whether calls may take cuDNN now: the switch on and the frontend loaded."""
    return backends.cudnn.enabled and frontend() is not None


def _unusable():
    """Why :func:`usable` is False."""
    return "no cuDNN frontend" if backends.cudnn.enabled else "lucid.backends.cudnn off"


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
    """The device's cuDNN handle, bound to the current CuPy stream, and its raw
    ``cudnnHandle_t`` (the raw-pointer execute's); the stream is rebound only when it
    changed (a capture's side stream, a user's stream)."""
    dev = cupy.cuda.runtime.getDevice()
    h = _HANDLES.get(dev)
    if h is None:
        made = mod.create_handle()
        h = _HANDLES[dev] = [made, made.backend_handle, None]
    stream = cupy.cuda.get_current_stream().ptr
    if h[2] != stream:
        mod.set_stream(h[0], stream)
        h[2] = stream
    return h[0], h[1]


class _Graph:
    """A built cuDNN graph: its tensors in the order a call passes its arrays, the plan
    that runs (the heuristics' first that builds, or the fastest where
    ``lucid.backends.cudnn.benchmark`` timed them) and that plan's workspace.

    A run hands the frontend's C++ graph the device pointers in its variant pack's
    order (ascending tensor uid) where the plan is one of the cuDNN library's: the
    frontend's Python ``execute`` re-reads the whole pack per call (tens of
    microseconds, the same order as the kernels of a small step). Where that entry point
    is missing (another frontend version) or the plan is one of the frontend's own
    Python engines, ``execute`` runs."""

    __slots__ = ("graph", "tensors", "plan", "workspace", "_raw")

    def __init__(self, graph, tensors, plan=None):
        self.graph, self.tensors, self.plan = graph, tensors, plan
        self.workspace = (
            graph.get_workspace_size()
            if plan is None
            else graph.get_workspace_size_plan_at_index(plan)
        )
        self._raw = self._raw_entry()

    def _raw_entry(self):
        """``(run, order, plan)``: the C++ graph's raw-pointer execute, for each
        variant-pack slot the index of its array in a call, and the C++ plan index (-1:
        the selected one); None where there is none to use."""
        g = self.graph
        try:
            at_plan = g._plan_index if self.plan is None else self.plan
            if g._plans and g._engine_for(g._plans[at_plan]) is not None:
                return None  # (one of the frontend's Python engines)
            cfg = g._materialize_backend_plan(at_plan) if g._plans else None
            index = -1 if cfg is None or cfg.cpp_index is None else cfg.cpp_index
            at = {t.uid: i for i, t in enumerate(self.tensors) if t is not None}
            order = [at[u] for u in g._variant_pack_uids()]
            run = g._lowered_graph._execute_with_raw_ptrs
        except Exception:  # noqa: BLE001 (a frontend without these internals)
            return None
        return run, order, index

    def __call__(self, mod, arrays):
        ws = empty((max(self.workspace, 1),), np.uint8)
        handle, raw_handle = _handle(mod)
        if self._raw is not None:
            run, order, index = self._raw
            ptrs = np.fromiter((arrays[i].data.ptr for i in order), np.int64, len(order))
            try:
                run(ptrs.ctypes.data, len(order), ws.data.ptr, raw_handle, index)
                return
            except TypeError:  # (an entry point of another signature: the public one)
                self._raw = None
        pack = {t: a.data.ptr for t, a in zip(self.tensors, arrays) if t is not None}
        if self.plan is None:
            self.graph.execute(pack, ws.data.ptr, handle=handle)
        else:
            self.graph.execute_plan_at_index(pack, ws.data.ptr, index=self.plan, handle=handle)


def _graph(key, build, arrays=None):
    """The cached graph of ``key``, built by ``build(mod, handle)`` into ``(pygraph,
    tensors)`` on a miss (never inside a capture); None where cuDNN refuses it (or a
    capture is in progress). With ``arrays`` and ``lucid.backends.cudnn.benchmark`` on, the
    plan is chosen by timing the candidates on them (:func:`_fastest`)."""
    if key in _GRAPHS:
        return _GRAPHS[key]
    if graphs.stream_capturing():
        return None
    mod = frontend()
    timed = arrays is not None and backends.cudnn.benchmark
    try:
        g, tensors = build(mod, _handle(mod)[0], timed)
        entry = _Graph(g, tensors) if not timed else _fastest(mod, g, tensors, arrays)
    except Exception:  # noqa: BLE001 (cudnnGraphNotSupportedError, a refused layout: fall back)
        entry = None
    _GRAPHS[key] = entry
    return entry


def _plans(mod, g, heuristics, fp32, timed):
    """Plan ``g`` under the switches: the candidates of ``heuristics``; without engines that
    round float32 inputs to TF32 unless ``allow_tf32`` (``fp32`` operands), or that are not
    run-to-run deterministic where ``deterministic`` (``lucid.backends.cudnn``'s or
    ``lucid.use_deterministic_algorithms``'s); then the first that builds, or every one
    (``timed``) for :func:`_fastest` to time."""
    notes = mod.numerical_note
    g.validate()
    g.build_operation_graph()
    g.create_execution_plans(heuristics)
    drop = ["DOWN_CONVERT_INPUTS"]
    if fp32 and not backends.cudnn.allow_tf32:
        drop.append("TENSOR_CORE")
    if backends.cudnn.deterministic or STATE.deterministic:
        drop.append("NONDETERMINISTIC")
    g.deselect_numeric_notes([getattr(notes, n) for n in drop])
    g.check_support()
    if timed:
        g.build_plans(mod.build_plan_policy.ALL)
    else:
        g.build_plans()


def _fastest(mod, g, tensors, arrays, reps=3):
    """The :class:`_Graph` of the built plan of ``g`` that runs ``arrays`` fastest (the
    first ``lucid.backends.cudnn.benchmark_limit`` candidates, the best of ``reps`` runs
    each, timed by CUDA events on the current stream)."""
    best = None
    for i in range(min(g.get_execution_plan_count(), max(1, backends.cudnn.benchmark_limit))):
        try:
            run = _Graph(g, tensors, i)
            run(mod, arrays)
        except Exception:  # noqa: BLE001 (a candidate that did not build or run)
            continue
        times = []
        for _ in range(reps):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            run(mod, arrays)
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
        if best is None or min(times) < best[0]:
            best = (min(times), run)
    if best is None:
        raise RuntimeError("no cuDNN plan ran")
    return best[1]


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
        return _unusable()
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

    def build(mod, handle, timed):
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

    def build(mod, handle, timed):
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


_CONV_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_CONV_OPS = {
    "conv_forward": ("conv_fprop", ("image", "weight")),
    "conv_backward_input": ("conv_dgrad", ("loss", "filter")),
    "conv_backward_weight": ("conv_wgrad", ("image", "loss")),
}


def _conv_check(a, b):
    """Why cuDNN's convolution cannot take the two operands ``a``, ``b``, or None."""
    if not usable():
        return _unusable()
    if a.dtype not in _CONV_DTYPES or b.dtype != a.dtype:
        return f"dtype {a.dtype}: cuDNN convolution takes float32, float16 and bfloat16"
    if not a.size or not b.size:
        return "an empty operand"
    return None


def _as4(a):
    """``a`` with a leading spatial dim of 1 where it has one spatial dim (cuDNN's
    convolutions take 2 or 3)."""
    return a[:, :, None] if a.ndim == 3 else a


def _conv(op, a, b, out_shape, stride, padding, dilation):
    r"""Run cuDNN's ``op`` of :data:`_CONV_OPS` on ``a``, ``b`` into a new C-contiguous
    array of ``out_shape`` (the operands' dtype), or None (the reason in ``CHOSEN``).

    The geometry is PyTorch's: padding as ``(lo, hi)`` per dim (cuDNN's pre- and
    post-padding), the window of output position :math:`o` reading input positions
    :math:`o s + k d - lo`; a 1-d convolution runs as a 2-d one over a height of 1."""
    why = _conv_check(a, b)
    if why is not None:
        return _refuse(op, why)
    a4, b4 = (_as4(cupy.ascontiguousarray(t)) for t in (a, b))
    out = empty(tuple(out_shape), a.dtype)
    o4 = _as4(out)
    one = len(out_shape) == 3
    geo = tuple(
        ((fill,) if one else ()) + tuple(v)
        for fill, v in (
            (0, [lo for lo, _ in padding]),
            (0, [hi for _, hi in padding]),
            (1, stride),
            (1, dilation),
        )
    )
    if any(t.data.ptr % 16 for t in (a4, b4, o4)):
        return _refuse(op, "operands not 16-byte aligned")
    fp32 = a.dtype == np.float32
    det = bool(backends.cudnn.deterministic or STATE.deterministic)
    arrays = (a4, b4, o4)
    key = (
        op,
        tuple(_layout(t) for t in arrays),
        a.dtype,
        geo,
        fp32 and backends.cudnn.allow_tf32,
        det,
        bool(backends.cudnn.benchmark),
    )
    method, names = _CONV_OPS[op]

    def build(mod, handle, timed):
        g = _new_graph(mod, handle, a.dtype)
        ta, tb = _inputs(g, names, arrays[:2])
        pre, post, st, dil = (list(v) for v in geo)
        to = getattr(g, method)(
            **{names[0]: ta, names[1]: tb},
            pre_padding=pre,
            post_padding=post,
            stride=st,
            dilation=dil,
            compute_data_type=mod.data_type.FLOAT,
            name=op,
        )
        _output(to, o4)
        _plans(mod, g, [mod.heur_mode.A, mod.heur_mode.FALLBACK], fp32, timed)
        return g, (ta, tb, to)

    g = _graph(key, build, arrays)
    if g is None:
        return _refuse(op, "cuDNN refused the graph")
    g(frontend(), arrays)
    CHOSEN[op] = "cudnn"
    return out


def conv_forward(x, w, out_spatial, stride, padding, dilation):
    """The convolution of ``x (N, C, *S)`` with ``w (C_out, C/G, *K)`` (groups from the
    channel counts), ``(N, C_out, *O)``; None where cuDNN does not take it."""
    return _conv(
        "conv_forward",
        x,
        w,
        x.shape[:1] + w.shape[:1] + tuple(out_spatial),
        stride,
        padding,
        dilation,
    )


def conv_backward_input(g, w, in_spatial, stride, padding, dilation, groups):
    """The gradient of :func:`conv_forward` to ``x``, ``(N, C, *in_spatial)``, from the
    output's gradient ``g``; None where cuDNN does not take it."""
    shape = g.shape[:1] + (w.shape[1] * groups,) + tuple(in_spatial)
    return _conv("conv_backward_input", g, w, shape, stride, padding, dilation)


def conv_backward_weight(g, x, kernel, stride, padding, dilation, groups):
    """The gradient of :func:`conv_forward` to ``w``, ``(C_out, C/G, *kernel)``; None
    where cuDNN does not take it."""
    shape = (g.shape[1], x.shape[1] // groups) + tuple(kernel)
    return _conv("conv_backward_weight", x, g, shape, stride, padding, dilation)
