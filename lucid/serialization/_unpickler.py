"""Reading a file's pickle: restricted (``weights_only=True``), full, or inert.

- :class:`WeightsOnlyUnpickler` rebuilds only what a checkpoint of weights is made of:
  tensors, storages, parameters, plain containers and scalars (dict, OrderedDict, list,
  tuple, set, frozenset, int, float, complex, str, bytes, bytearray, bool, None), ``Size``,
  dtypes, devices, and the globals the user allowed (:mod:`._safe_globals`). It is Python's
  pure unpickler with a look-up table instead of imports and with every opcode that calls
  or builds an object checked: REDUCE and NEWOBJ only of what the table gave, BUILD only
  on an OrderedDict or an allowed class's instance, APPEND / SETITEM only on lists and
  dicts; INST, OBJ, the extension registry and text persistent ids are refused. So a file
  can name nothing else, and nothing it holds runs.
- :class:`FullUnpickler` (``weights_only=False``) is ``pickle.Unpickler`` with PyTorch's
  names mapped to Lucid's: it runs whatever the file says, PyTorch's explicit opt-in.
- :class:`InertUnpickler` walks a pickle building nothing (every global and call a stub),
  only to learn the storages it refers to (PyTorch's legacy format lists them after it).
"""

from __future__ import annotations

import collections
import pickle
import pickletools
from collections.abc import Callable
from typing import Any, ClassVar

from .._tensor import Tensor
from ..errors import SerializationError, WeightsOnlyError
from . import _safe_globals
from ._names import StorageType, fixed_counterparts, torch_counterpart

__all__ = ["WeightsOnlyUnpickler", "FullUnpickler", "InertUnpickler", "unsafe_globals"]

_COMPAT = {"__builtin__": "builtins", "copy_reg": "copyreg"}  # Python 2 module names


def _latin1(obj, encoding="latin1"):
    """``_codecs.encode`` as protocol-2 pickles of ``bytes`` use it (latin-1 only)."""
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1"):
        raise WeightsOnlyError(
            f"Weights only load failed: _codecs.encode is allowed for "
            f"bytes as pickles write them (a str, 'latin1'), got "
            f"{type(obj).__name__} and {encoding!r}"
        )
    return obj.encode("latin1")


_DEFAULTS = {
    "collections.OrderedDict": collections.OrderedDict,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.complex": complex,
    "builtins.bytearray": bytearray,
    "builtins.slice": slice,
    "_codecs.encode": _latin1,
}

_ADVICE = (
    "Re-running `lucid.load` with `weights_only=False` will likely succeed, but it "
    "can result in arbitrary code execution; do it only if you got the file from a "
    "trusted source."
)


def _is_torch(module):
    return module == "torch" or module.startswith("torch.")


class WeightsOnlyUnpickler(pickle._Unpickler):
    """The restricted unpickler of ``load(weights_only=True)``."""

    dispatch: ClassVar[dict[int, Callable[..., Any]]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load
        self._found = {}  # id -> the objects find_class gave (what may be called)

    def persistent_load(self, pid):
        return self._persistent(pid)

    def _refuse(self, what):
        raise WeightsOnlyError(f"Weights only load failed: {what}. {_ADVICE}")

    def find_class(self, module, name):
        module = _COMPAT.get(module, module)
        full = f"{module}.{name}"
        obj = _DEFAULTS.get(full)
        if obj is None and _is_torch(module):
            obj = fixed_counterparts().get(full)
            if obj is None:
                lucid_obj = torch_counterpart(module, name)  # or says what Lucid lacks
                if (
                    _safe_globals.is_allowed_object(lucid_obj)
                    or _safe_globals.lookup(module, name) is not None
                ):
                    obj = lucid_obj
                else:
                    self._unsupported(full, lucid_obj.__name__)
        if obj is None:
            obj = _safe_globals.lookup(module, name)
        if obj is None:
            self._unsupported(full, name)
        self._found[id(obj)] = obj
        return obj

    def _unsupported(self, full, short):
        self._refuse(
            f"Unsupported global: GLOBAL {full} was not an allowed global by "
            f"default. Please use `lucid.serialization.add_safe_globals([{short}])` "
            f"or the `lucid.serialization.safe_globals([{short}])` context manager "
            "to allowlist this global if you trust this class/function"
        )

    def _given(self, obj):
        return id(obj) in self._found and self._found[id(obj)] is obj

    # -- the opcodes that call or build objects

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._given(func) or isinstance(func, StorageType):
            self._refuse(f"REDUCE of {func!r}, which no allowed global gave")
        if type(args) is not tuple:
            self._refuse(f"REDUCE with arguments of type {type(args).__name__}")
        self.stack[-1] = func(*args)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))

    def _new(self, cls, args, kwargs):
        if not (isinstance(cls, type) and self._given(cls)):
            self._refuse(f"NEWOBJ of {cls!r}, which is not an allowed class")
        if type(args) is not tuple or type(kwargs) is not dict:
            self._refuse("NEWOBJ with malformed arguments")
        return cls.__new__(cls, *args, **kwargs)

    def load_build(self):
        state = self.stack[-1]
        inst = self.stack[-2]
        if type(inst) is collections.OrderedDict:
            attrs = (
                state[0] if type(state) is tuple and len(state) == 2 and state[1] is None else state
            )
            if type(attrs) is not dict or not all(
                type(k) is str and not hasattr(collections.OrderedDict, k) for k in attrs
            ):
                self._refuse(
                    "BUILD of an OrderedDict with a state other than attributes "
                    "of its own (such as a state dict's _metadata)"
                )
            self.stack.pop()
            inst.__dict__.update(attrs)
            return
        if isinstance(inst, Tensor) or not self._given(type(inst)):
            self._refuse(f"BUILD of a {type(inst).__name__}, which is not an allowed class")
        super().load_build()

    def load_append(self):
        self._check_target(list, "APPEND", 2)
        super().load_append()

    def load_appends(self):
        self._check_target(list, "APPENDS", None)
        super().load_appends()

    def load_setitem(self):
        self._check_target(dict, "SETITEM", 3)
        super().load_setitem()

    def load_setitems(self):
        self._check_target(dict, "SETITEMS", None)
        super().load_setitems()

    def load_additems(self):
        self._check_target(set, "ADDITEMS", None)
        super().load_additems()

    def _check_target(self, kind, op, depth):
        """The object ``op`` changes: below its arguments (``depth``), or below the mark."""
        target = (
            self.stack[-depth]
            if depth
            else (self.metastack[-1][-1] if self.metastack and self.metastack[-1] else None)
        )
        if not isinstance(target, kind):
            self._refuse(f"{op} on a {type(target).__name__}, expected a {kind.__name__}")

    def _refused_opcode(self):
        self._refuse(
            "the pickle uses an opcode that builds objects by name (INST, OBJ, "
            "EXT or PERSID), which weights_only loading does not allow"
        )

    for _op in (pickle.INST, pickle.OBJ, pickle.EXT1, pickle.EXT2, pickle.EXT4, pickle.PERSID):
        dispatch[_op[0]] = _refused_opcode
    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.APPEND[0]] = load_append
    dispatch[pickle.APPENDS[0]] = load_appends
    dispatch[pickle.SETITEM[0]] = load_setitem
    dispatch[pickle.SETITEMS[0]] = load_setitems
    dispatch[pickle.ADDITEMS[0]] = load_additems
    del _op


class FullUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` reading PyTorch's names as Lucid's (``weights_only=False``)."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module, name):
        module = _COMPAT.get(module, module)
        if _is_torch(module):
            return torch_counterpart(module, name)
        return super().find_class(module, name)


class _Stub:
    """What every global and call gives in an inert walk: absorbs everything."""

    def __call__(self, *args, **kwargs):
        return _Stub()

    def __setstate__(self, state):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass

    def add(self, item):
        pass

    def __setitem__(self, key, value):
        pass


class InertUnpickler(pickle._Unpickler):
    """Walks a pickle building no object of the file's: ``pids`` collects its persistent
    ids whose storage type Lucid knows (``torch.<Type>Storage``)."""

    dispatch: ClassVar[dict[int, Callable[..., Any]]] = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self.pids = []

    def find_class(self, module, name):
        got = fixed_counterparts().get(f"{_COMPAT.get(module, module)}.{name}")
        return got if isinstance(got, StorageType) else _Stub()

    def persistent_load(self, pid):
        if isinstance(pid, tuple):
            self.pids.append(pid)
        return _Stub()

    def _stub_call(self):
        self.stack[-1] = _Stub()  # REDUCE / BUILD: the callable or object stays a stub
        del self.stack[-2:-1]

    def _stub_newobj(self):
        del self.stack[-2:]
        self.append(_Stub())

    def _stub_newobj_ex(self):
        del self.stack[-3:]
        self.append(_Stub())

    def _stub_mark_call(self):  # INST / OBJ: a marked group becomes a stub
        self.pop_mark()
        self.append(_Stub())

    def _stub_inst(self):
        self.readline()
        self.readline()
        self._stub_mark_call()

    def _stub_ext(self, n):
        self.read(n)
        self.append(_Stub())

    dispatch[pickle.REDUCE[0]] = _stub_call
    dispatch[pickle.BUILD[0]] = _stub_call
    dispatch[pickle.NEWOBJ[0]] = _stub_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _stub_newobj_ex
    dispatch[pickle.OBJ[0]] = _stub_mark_call
    dispatch[pickle.INST[0]] = _stub_inst
    dispatch[pickle.EXT1[0]] = lambda self: self._stub_ext(1)
    dispatch[pickle.EXT2[0]] = lambda self: self._stub_ext(2)
    dispatch[pickle.EXT4[0]] = lambda self: self._stub_ext(4)


def _globals_named(pickled):
    """Every ``(module, name)`` that pickle bytes ``pickled`` name (read, not run): GLOBAL's
    argument, and STACK_GLOBAL's two strings (followed through the memo)."""
    names, strings, memo, last, memoized = [], [], {}, None, 0
    for op, arg, _ in pickletools.genops(pickled):
        if op.name in ("BINPUT", "LONG_BINPUT", "PUT", "MEMOIZE"):  # top stays the same
            if last is not None:
                memo[memoized if op.name == "MEMOIZE" else arg] = last
            memoized += op.name == "MEMOIZE"
            continue
        pushed = None  # the string this opcode leaves on top, if any
        if op.name == "GLOBAL":
            names.append(tuple(arg.split(" ", 1)))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            names.append((strings[-2], strings[-1]))
        elif ("UNICODE" in op.name or "STRING" in op.name) and isinstance(arg, str):
            pushed = arg
        elif op.name in ("BINGET", "LONG_BINGET", "GET"):
            pushed = memo.get(arg)
        if pushed is not None:
            strings.append(pushed)
        last = pushed
    return names


def unsafe_globals(pickled):
    """The globals of ``pickled`` that ``weights_only`` loading refuses now (neither a
    default nor allowed), as sorted ``"module.name"`` strings."""
    out = set()
    for module, name in _globals_named(pickled):
        module = _COMPAT.get(module, module)
        full = f"{module}.{name}"
        if (
            full in _DEFAULTS
            or full in fixed_counterparts()
            or _safe_globals.lookup(module, name) is not None
        ):
            continue
        if _is_torch(module):
            try:
                if _safe_globals.is_allowed_object(torch_counterpart(module, name)):
                    continue
            except SerializationError:
                pass
        out.add(full)
    return sorted(out)
