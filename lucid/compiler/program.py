"""The replay: a recorded call as a flat list of units over a list of buffers.

A :class:`Program` holds the units of one recording (:mod:`.recorder`) in the order they
ran, each ``(fn, arg specs, kw specs, out spec)``, the sources read into the buffer list
``env`` before the first unit, the effects applied after the last (:mod:`.state`), and
the outputs. :meth:`Program.run` is the whole replay: no op dispatch, no promotion or shape
checks, no autograd nodes (they were all done when the call was recorded); a buffer is
dropped after its last use, as eager frees an intermediate.

When the outputs of the recorded call still need their backward (a compiled module whose
loss is differentiated outside), the backward was recorded too, once, from the outputs to
the tensors the call took from outside (its *boundary*: parameters, inputs that require
grad); a replay's outputs then share one :class:`CompiledBackward` node that runs that
second program over the buffers of its forward.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.graph import Node, new_node
from ..errors import AutogradError
from .state import DATA, GRAD
from .units import CONST, SEQ, SLOT, bind, reads, resolve

__all__ = ["Program", "CompiledBackward", "Stale"]

_wrap = Tensor._wrap


class Stale(Exception):
    """A replay found a source not as recorded (a ``.grad`` gone, a shape changed): the
    call runs eagerly instead, before any unit ran."""


def _fast(specs):
    """The argument specs as ``(is_slot, value)`` pairs when each is a slot or a constant
    (the common case, resolved without recursion), else None."""
    if all(s[0] == SLOT or s[0] == CONST for s in specs):
        return tuple((s[0] == SLOT, s[1]) for s in specs)
    return None


def _split_kw(kw):
    """A unit's keyword specs as (the constants, a dict; the others, ``(name, spec)``)."""
    if not kw:
        return {}, ()
    const = {n: sp[1] for n, sp in kw.items() if sp[0] == CONST}
    return const, tuple((n, sp) for n, sp in kw.items() if sp[0] != CONST)


class Program:
    """A recording made replayable (see the module doc)."""

    def __init__(self, units, sources, arrays, effects=(), outputs=None):
        """``units`` and ``sources`` as a recorder lists them; ``arrays``: the recorded
        array of each slot (the sources' shapes are checked against them at replay)."""
        self.sources = [(k, kind, v) for k, (kind, v) in sources]
        self.shapes = tuple(arrays[k].shape for k, _ in sources)
        self.effects = effects
        self.outputs = outputs
        self.n_slots = len(arrays)  # (grown by api._finish when a backward adds slots)
        self.hyper_checks = ()  # (group, key, index, value): hyperparameters as constants
        self.cuda = None  # the CUDA backend, when every source lives on one CUDA device
        self.graph = None  # mode="reduce-overhead": its GraphReplay, or False (no graph)
        self.backward = None  # a Program from the outputs' gradients, when they need one
        self.boundary = None  # the specs of the tensors the backward returns gradients for
        # [fn, fast args or None, arg specs, kw specs, out spec, slots to drop after it,
        #  constant keywords, other keywords]
        self.units = [
            [fn, _fast(args), args, kw, out, (), *_split_kw(kw)] for fn, args, kw, out in units
        ]
        self.keep_slots: set = set()  # slots read after the units (effects, outputs, backward)

    def finish(self, keep):
        """Drop each buffer after the unit that reads it last, except those in ``keep``."""
        self.keep_slots = set(keep)
        last = {}
        for i, u in enumerate(self.units):
            for k in reads(u[2], u[3]):
                last[k] = i
        frees = {}
        for k, i in last.items():
            if k not in self.keep_slots:
                frees.setdefault(i, []).append(k)
        for i, u in enumerate(self.units):
            u[5] = tuple(frees.get(i, ()))

    def read_sources(self, env, args):
        """Fill ``env`` from the sources; :class:`Stale` if one is missing or reshaped."""
        got = []
        try:
            for k, kind, v in self.sources:
                if kind == DATA:
                    a = v._data
                elif kind == GRAD:
                    a = v._grad._data
                else:
                    a = args[v]._data
                env[k] = a
                got.append(a.shape)
        except AttributeError:
            raise Stale("a gradient the recording read is None") from None
        if tuple(got) != self.shapes:
            raise Stale("an array the recording read changed its shape")
        self.check_hypers()

    def check_hypers(self):
        """:class:`Stale` if a hyperparameter recorded as a constant changed."""
        for group, key, i, value in self.hyper_checks:
            v = group[key]
            if (v if i is None else v[i]) != value:
                raise Stale(f"the hyperparameter {key!r} changed")

    def run(self, env):
        """The units, in order, over ``env``."""
        for fn, fast, args, _, out, frees, kconst, kdyn in self.units:
            if fast is not None:
                a = [env[v] if s else v for s, v in fast]
            else:
                a = [resolve(s, env) for s in args]
            if kdyn:
                kw = dict(kconst)
                for n, sp in kdyn:
                    kw[n] = resolve(sp, env)
                res = fn(*a, **kw)
            else:
                res = fn(*a, **kconst)
            k = out[0]
            if k == SLOT:
                env[out[1]] = res
            elif k == SEQ:
                bind(out, res, env)
            for f in frees:
                env[f] = None

    def apply_effects(self, env):
        for kind, t, v in self.effects:
            if kind == DATA:
                t._data = env[v]
            elif kind == GRAD:
                if len(v) == 2:
                    t._grad = v[1]
                else:
                    t._grad = _wrap(env[v[0]], v[1], v[2])
            else:  # a version counter moved
                t[0] += v

    def build_outputs(self, env, args, node, copy=None):
        """The return value over ``env`` (each output array through ``copy`` when given:
        a CUDA graph's buffers are overwritten by its next replay)."""
        return _outputs(self.outputs, env, args, node, copy)


def _outputs(s, env, args, node, copy):
    """The replay's return value from the output spec (see ``api._out_spec``)."""
    k = s[0]
    if k == "T":
        _, slot, dt, dev, nr = s
        t = _wrap(env[slot] if copy is None else copy(env[slot]), dt, dev)
        if nr is not None and node is not None:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = nr
        return t
    if k == "arg":
        return args[s[1]]
    if k == "seq":
        return s[1](_outputs(v, env, args, node, copy) for v in s[2])
    if k == "dict":
        return {n: _outputs(v, env, args, node, copy) for n, v in s[1].items()}
    return s[1]


class CompiledBackward(Node):
    """The one node of a replay's outputs: runs the recorded backward program over the
    forward's buffers and returns a gradient for each boundary tensor."""

    __slots__ = ("program", "env", "args")

    materialize_grads = True

    def name(self):
        return "CompiledFunctionBackward"

    def apply_eager(self, grads):
        prog = self.program
        env = self.env
        if env is None:
            raise AutogradError(
                "CompiledFunctionBackward: trying to backward through the graph a second time; "
                "pass retain_graph=True to the first backward() call"
            )
        env = list(env)
        for k, g in zip(prog.grad_slots, grads):
            env[k] = g
        prog.read_sources(env, self.args)
        prog.run(env)
        return [None if k is None else env[k] for k in prog.result_slots]

    def apply_graph(self, grads):
        raise AutogradError(
            "CompiledFunctionBackward: a double backward (create_graph=True) through a "
            "compiled function is not supported; call the function without lucid.compile "
            "for higher-order gradients"
        )

    def release(self):
        self.env = None
        self._freed = True


def make_backward_node(prog, env, args, boundary_tensors, be):
    """The :class:`CompiledBackward` of one replay (its edges to the boundary tensors)."""
    node = new_node(CompiledBackward, be, boundary_tensors)
    node.program = prog
    node.env = env
    node.args = args
    return node
