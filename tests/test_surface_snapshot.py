"""The op registry and the public namespaces, compared with a recorded snapshot.

Moving code between modules (the op families of ``lucid/ops/``) must not change what users
see: every registered op (its schema name, class name and schema), every public name of the
namespaces below with its kind, and every public function's signature. After a deliberate
change of the surface, record it again with ``python tests/test_surface_snapshot.py``.

The snapshot is taken in a fresh interpreter: what ``import lucid`` alone gives, not what
earlier tests happened to import (a lazily imported submodule becomes its package's
attribute).
"""

import inspect
import json
import pathlib
import subprocess
import sys
import types

import lucid

SNAPSHOT = pathlib.Path(__file__).with_name("surface_snapshot.json")

NAMESPACES = (
    "lucid",
    "lucid.ops",
    "lucid.nn",
    "lucid.nn.functional",
    "lucid.nn.init",
    "lucid.linalg",
    "lucid.special",
    "lucid.fft",
    "lucid.autograd",
    "lucid.func",
    "lucid.optim",
    "lucid.optim.lr_scheduler",
    "lucid.random",
    "lucid.amp",
    "lucid.profiler",
    "lucid.autograd.profiler",
)


def _kind(obj):
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        try:
            return f"function{inspect.signature(obj)}"
        except (TypeError, ValueError):  # (a builtin without a signature)
            return "function"
    return type(obj).__name__


def _namespace(name):
    mod = lucid
    for part in name.split(".")[1:]:
        mod = getattr(mod, part)
    out = {}
    for attr in sorted(dir(mod)):
        if attr.startswith("_"):
            continue
        kind = _kind(getattr(mod, attr))
        # lucid.ops's submodules are its layout, which may change; every other
        # namespace's modules are public
        if kind == "module" and name == "lucid.ops":
            continue
        out[attr] = kind
    return out


def _registry():
    return {
        name: [cls.__name__, repr(cls.schema_v1)]
        for name, cls in sorted(lucid.ops.registry.all_ops().items())
    }


def snapshot():
    return {
        "registry": _registry(),
        "namespaces": {n: _namespace(n) for n in NAMESPACES},
        "tensor": {
            a: _kind(getattr(lucid.Tensor, a))
            for a in sorted(dir(lucid.Tensor))
            if not a.startswith("_") or a.startswith("__") and a.endswith("__")
        },
    }


def _diff(old, new):
    gone = sorted(set(old) - set(new))
    added = sorted(set(new) - set(old))
    changed = sorted(k for k in set(old) & set(new) if old[k] != new[k])
    return gone, added, changed


def _fresh_snapshot():
    out = subprocess.run(
        [sys.executable, __file__, "--print"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_registry_is_as_recorded():
    new = _fresh_snapshot()["registry"]
    gone, added, changed = _diff(json.loads(SNAPSHOT.read_text())["registry"], new)
    assert not (gone or added or changed), (gone, added, changed)


def test_public_namespaces_are_as_recorded():
    old = json.loads(SNAPSHOT.read_text())
    new = _fresh_snapshot()
    problems = {}
    for name in NAMESPACES:
        d = _diff(old["namespaces"][name], new["namespaces"][name])
        if any(d):
            problems[name] = d
    d = _diff(old["tensor"], new["tensor"])
    if any(d):
        problems["Tensor"] = d
    assert not problems, problems


if __name__ == "__main__":
    text = json.dumps(snapshot(), indent=1, sort_keys=True) + "\n"
    if sys.argv[1:] == ["--print"]:
        sys.stdout.write(text)
    else:
        SNAPSHOT.write_text(text)
        print(f"wrote {SNAPSHOT}")
