"""Where each backend implements a kernel that an op's ``dispatch`` calls.

``dispatch(be, *arrays, **params)`` calls methods of its backend ``be``. For each such
method this module finds the interface that documents it (:class:`lucid.backend.Backend`),
the class that implements it for the CPU (:class:`lucid.backend.CpuBackend`'s MRO: the CPU
backend itself or a shared ``lucid/backend/array`` mixin) and the one for CUDA. The CUDA
backend imports CuPy, which a documentation build need not have, so its classes are read
from the source with :mod:`ast` rather than imported: ``CudaBackend``'s bases, in order,
then the shared ``ArrayBackend`` mixins (the same resolution Python's MRO makes, since the
CUDA mixins have no bases of their own).
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

import lucid
from lucid.backend import Backend, CpuBackend
from lucid.backend.array import ArrayBackend

ROOT = Path(lucid.__file__).resolve().parent.parent
CUDA_DIR = ROOT / "lucid" / "backend" / "cuda"


@dataclass(frozen=True)
class Impl:
    """One implementation of a kernel: the class and file that define it."""

    owner: str  # the defining class, e.g. "XpUnary"
    path: str  # repository-relative file
    line: int
    source: str  # the method's source text
    shared: bool  # defined in lucid/backend/array (one code path for NumPy and CuPy)


@dataclass(frozen=True)
class Kernel:
    """A backend method an op calls: its interface summary and both implementations."""

    name: str
    interface: str | None  # the interface class (e.g. "UnaryKernels"), None if undeclared
    summary: str
    cpu: Impl | None
    cuda: Impl | None


def _rel(path: str | Path) -> str:
    return str(Path(path).resolve().relative_to(ROOT))


def backend_calls(fn) -> list[str]:
    """The backend methods ``fn`` calls on its first parameter, in order of first use,
    following module-level helpers of ``lucid.ops`` that receive the backend."""
    seen: list[str] = []
    _collect(fn, seen, set())
    return seen


def _collect(fn, seen: list[str], visited: set) -> None:
    fn = inspect.unwrap(fn)
    if fn in visited:
        return
    visited.add(fn)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef) or not func.args.args:
        return
    be = func.args.args[0].arg
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == be
            and not node.attr.startswith("__")
            and node.attr not in seen
        ):
            seen.append(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            passes_be = any(isinstance(a, ast.Name) and a.id == be for a in node.args)
            helper = getattr(fn, "__globals__", {}).get(node.func.id)
            if (
                passes_be
                and inspect.isfunction(helper)
                and helper.__module__.startswith("lucid.ops")
            ):
                _collect(helper, seen, visited)


def _impl_from_class(cls, name: str) -> Impl:
    member = inspect.unwrap(cls.__dict__[name])
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    try:
        lines, line = inspect.getsourcelines(member)
        path = _rel(inspect.getsourcefile(member))
        source = textwrap.dedent("".join(lines))
    except (OSError, TypeError):  # an attribute that is not a function (a constant)
        path, line, source = _rel(inspect.getsourcefile(cls)), 0, repr(member)
    return Impl(cls.__name__, path, line, source, path.startswith("lucid/backend/array"))


def _cpu_impl(name: str) -> Impl | None:
    for cls in CpuBackend.__mro__:
        if name in cls.__dict__ and cls not in Backend.__mro__:
            return _impl_from_class(cls, name)
    return None


@functools.cache
def _cuda_classes() -> dict[str, tuple[str, dict[str, ast.AST], str]]:
    """Class name -> (file, {method: node}, file text) for every class of the CUDA package."""
    out = {}
    for path in sorted(CUDA_DIR.glob("*.py")):
        text = path.read_text()
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef):
                methods = {
                    b.name: b
                    for b in node.body
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
                }
                for b in node.body:  # class-level aliases: ``name = other``
                    if isinstance(b, ast.Assign):
                        for t in b.targets:
                            if isinstance(t, ast.Name):
                                methods[t.id] = b
                out[node.name] = (_rel(path), methods, text)
    return out


@functools.cache
def _cuda_order() -> tuple[str, ...]:
    """``CudaBackend`` followed by its bases as written (before ``ArrayBackend``)."""
    classes = _cuda_classes()
    path = CUDA_DIR / "backend.py"
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == "CudaBackend":
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            return tuple(n for n in ["CudaBackend", *bases] if n in classes)
    raise RuntimeError("lucid/backend/cuda/backend.py defines no CudaBackend")


def _cuda_impl(name: str) -> Impl | None:
    classes = _cuda_classes()
    for owner in _cuda_order():
        path, methods, text = classes[owner]
        node = methods.get(name)
        if node is not None:
            source = textwrap.dedent(ast.get_source_segment(text, node, padded=True) or "")
            return Impl(owner, path, node.lineno, source, False)
    for cls in ArrayBackend.__mro__:  # the shared mixins, on CuPy
        if name in cls.__dict__ and cls not in Backend.__mro__:
            return _impl_from_class(cls, name)
    return None


def _interface(name: str) -> tuple[str | None, str]:
    for cls in Backend.__mro__:
        if name in cls.__dict__ and cls is not object:
            doc = inspect.getdoc(cls.__dict__[name]) or ""
            return cls.__name__, doc.split("\n\n")[0].replace("\n", " ")
    return None, ""


def kernel(name: str) -> Kernel:
    """Everything the docs show about backend method ``name``."""
    interface, summary = _interface(name)
    return Kernel(name, interface, summary, _cpu_impl(name), _cuda_impl(name))
