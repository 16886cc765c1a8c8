"""``mode="reduce-overhead"`` on the GPU: a program's replay captured once into a CUDA graph.

The second call of a signature whose program runs on a CUDA device (and has no recorded
backward) captures :meth:`~lucid.compiler.program.Program.run` into a graph over a buffer
list of its own: each argument gets a static copy that later calls refresh in place, the
other sources (parameters, optimizer states) must stay the same arrays, and the buffers the
graph makes come from its private pool, the same every replay. A call then costs one copy
per argument and one graph launch; its effects and (copied) outputs are applied as a plain
replay's. What the graph cannot replay — a random kernel, an optimizer counting steps on
the host: the CUDA backend refuses them inside a capture — leaves the program on plain
replays, with the reason in ``stats()["cudagraph_fallbacks"]``. A hyperparameter the
program reads from its param group (a learning rate) is frozen in the graph, so a call
where one changed takes a plain replay.
"""

from __future__ import annotations

from ..errors import LucidError
from .state import ARG, DATA
from .units import HYPER, resolve

__all__ = ["GraphReplay", "try_capture"]


def _hypers(prog):
    """The HYPER specs the program's units read, with their values now."""
    out = []
    for u in prog.units:
        for _, spec in u[7]:
            if spec[0] == HYPER:
                out.append((spec, resolve(spec, None)))
    return out


class GraphReplay:
    """One program's CUDA graph and the buffers it reads and writes (see the module doc)."""

    def __init__(self, prog, tensors, be):
        from ..backend.cuda import graphs  # (CuPy: only where a CUDA device ran the call)

        env = [None] * prog.n_slots
        prog.read_sources(env, tensors)
        self.args = []  # (static buffer, argument index)
        self.fixed = []  # (kind, tensor, array): sources that must stay the same arrays
        for k, kind, v in prog.sources:
            if kind == ARG:
                env[k] = be.copy(env[k])
                self.args.append((env[k], v))
            else:
                self.fixed.append((kind, v, env[k]))
        self.hypers = _hypers(prog)
        self.be = be
        self.capture, _ = graphs.capture_call(lambda: prog.run(env))
        self.env = env

    def valid(self):
        """Whether the graph still reads the arrays and hyperparameters it was made on."""
        for kind, t, a in self.fixed:
            got = t._data if kind == DATA else (None if t._grad is None else t._grad._data)
            if got is not a:
                return False
        return all(resolve(spec, None) == v for spec, v in self.hypers)

    def replay(self, tensors):
        """Refresh the static arguments and launch; returns the buffer list."""
        assign = self.be.assign
        for buf, i in self.args:
            assign(buf, tensors[i]._data)
        self.capture.replay()
        return self.env


def try_capture(prog, tensors, be):
    """A :class:`GraphReplay` of ``prog``, or the reason it cannot be captured."""
    try:
        return GraphReplay(prog, tensors, be)
    except LucidError as e:  # (a kernel the backend refuses inside a capture)
        return str(e)
    except Exception as e:  # noqa: BLE001  (CUDA's own refusal of an operation: reported)
        return f"{type(e).__name__}: {e}"
