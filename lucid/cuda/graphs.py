"""CUDA graphs, as ``torch.cuda`` has them: capture the kernels of a block of code once,
then replay them all with one launch, without Python dispatching each op again.

    g = lucid.cuda.CUDAGraph()
    with lucid.cuda.graph(g):          # captured, not run
        loss = loss_fn(model(static_x), static_y)
        loss.backward()
        opt.step()
    for x, y in batches:
        static_x.copy_(x); static_y.copy_(y)
        g.replay()                     # the whole step, new data, same arrays

A replay reads and writes the arrays the capture used: feed it by writing into the
captured inputs in place, read the captured outputs (``loss`` above) after it. Run the
code a few times before capturing it (kernels compile, optimizer state is made, the
gradients exist). What the capture did on the host is not redone: Python numbers (a
learning rate) keep their captured values, and ops whose host state moves every call
(random ops, optimizers that count steps on the host: Adam and its family) raise a
``DeviceError`` inside a capture. The arrays a capture makes come from a memory pool of
the graph's own (:func:`graph_pool_handle` shares one between graphs), which
``memory_allocated`` does not count.
"""

from __future__ import annotations

from ..backend import cuda as _cuda
from ..errors import DeviceError
from .devices import _runtime, current_device, synchronize
from .streams import Stream, current_stream, stream

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing"]


def _graphs(op):
    _runtime(op)
    from ..backend.cuda import graphs  # (imports CuPy: only once CUDA is known present)

    return graphs


def graph_pool_handle():
    """A memory pool to share between the captures of several graphs
    (``capture_begin(pool=...)``, ``graph(..., pool=...)``)."""
    return _graphs("graph_pool_handle").Pool()


def is_current_stream_capturing() -> bool:
    """Whether the current stream is capturing a CUDA graph."""
    return bool(_cuda.AVAILABLE) and _graphs("is_current_stream_capturing").stream_capturing()


class CUDAGraph:
    """A CUDA graph: :meth:`capture_begin` / :meth:`capture_end` around the code to
    capture (on a stream other than the default one; :class:`graph` arranges that), then
    :meth:`replay` any number of times."""

    def __init__(self):
        self._capture = None
        self._pool = None

    def capture_begin(self, pool=None):
        """Start capturing the current stream's kernels (``pool``: from
        :func:`graph_pool_handle` or another graph's :meth:`pool`; default a new one)."""
        g = _graphs("CUDAGraph.capture_begin")
        if self._capture is not None:
            raise DeviceError(
                "CUDAGraph.capture_begin: this graph has already been captured; call reset() first"
            )
        self._pool = g.Pool() if pool is None else pool
        capture = g.Capture(self._pool)
        capture.begin(current_stream()._cp)
        self._capture = capture

    def capture_end(self):
        """End the capture begun by :meth:`capture_begin`."""
        if self._capture is None or self._capture.graph is not None:
            raise DeviceError("CUDAGraph.capture_end: no capture in progress")
        self._capture.end()

    def _abort(self):
        self._capture.abort()
        self._capture = None

    def replay(self):
        """Run the captured kernels on the current stream."""
        if self._capture is None or self._capture.graph is None:
            raise DeviceError("CUDAGraph.replay: nothing has been captured")
        self._capture.replay()

    def reset(self):
        """Drop the captured graph (and this graph's hold on its memory pool)."""
        self._capture = self._pool = None

    def pool(self):
        """This graph's memory pool, to share with a later capture."""
        if self._pool is None:
            raise DeviceError("CUDAGraph.pool: the graph has no pool before capture_begin")
        return self._pool

    def __repr__(self):
        state = (
            "empty"
            if self._capture is None
            else "capturing"
            if self._capture.graph is None
            else "captured"
        )
        return f"<lucid.cuda.CUDAGraph {state}>"


_SIDE: dict = {}  # device index -> the side stream captures run on by default


class graph:
    """``with lucid.cuda.graph(g):`` captures the block into :class:`CUDAGraph` ``g``: the
    device is synchronised, the block runs on ``stream`` (default: a side stream kept for
    captures) and is captured, not run. An error inside the block ends the capture,
    leaves ``g`` empty and propagates."""

    def __init__(self, cuda_graph, pool=None, stream=None):
        self.cuda_graph = cuda_graph
        self.pool = pool
        self.stream = stream
        self._ctx = None

    def __enter__(self):
        synchronize()
        s = self.stream
        if s is None:
            idx = current_device()
            s = _SIDE.get(idx)
            if s is None:
                s = _SIDE[idx] = Stream()
        self._ctx = stream(s)
        self._ctx.__enter__()
        try:
            self.cuda_graph.capture_begin(self.pool)
        except BaseException:
            self._ctx.__exit__(None, None, None)
            raise
        return self.cuda_graph

    def __exit__(self, kind, exc, tb):
        try:
            if kind is None:
                self.cuda_graph.capture_end()
            else:
                self.cuda_graph._abort()
        finally:
            self._ctx.__exit__(None, None, None)
        return False
