"""One page per public namespace (``lucid``, ``lucid.nn``, ``lucid.optim``, ...) and one for
:class:`lucid.Tensor`, written as autodoc directives over the objects' own docstrings.

A namespace's public names are its ``__all__``, or its ``dir()`` without ``_`` names where it
has none (the same rule ``tests/docs`` checks the built site against). Each name is
documented under the namespace it is reached from (``lucid.nn.Linear``, not the module that
defines it): classes with their documented members, functions, and data with their value.
A public submodule links to its own page, or, where it only holds what its package
re-exports (``lucid.nn.modules``), is declared with ``py:module`` so it has an anchor too.
"""

from __future__ import annotations

import importlib
import inspect
import types

from . import rst

# The documented namespaces, in the order of the API index; the Tensor has its own page.
NAMESPACES = (
    "lucid",
    "lucid.nn",
    "lucid.nn.functional",
    "lucid.nn.init",
    "lucid.nn.utils",
    "lucid.optim",
    "lucid.optim.lr_scheduler",
    "lucid.utils.data",
    "lucid.amp",
    "lucid.autograd",
    "lucid.autograd.functional",
    "lucid.cuda",
    "lucid.distributed",
    "lucid.compiler",
    "lucid.profiler",
    "lucid.linalg",
    "lucid.fft",
    "lucid.special",
    "lucid.func",
    "lucid.distributions",
    "lucid.models",
    "lucid.models.gpt2",
    "lucid.models.llama",
    "lucid.models.bert",
    "lucid.models.classic",
    "lucid.models.convnext",
    "lucid.models.mobile",
    "lucid.models.regnet",
    "lucid.models.resnet",
    "lucid.models.swin",
    "lucid.models.unet",
    "lucid.models.diffusion",
    "lucid.models.vae",
    "lucid.models.tokenizers",
    "lucid.models.vit",
    "lucid.models.weights",
    "lucid.hub",
    "lucid.transforms",
    "lucid.models.generation",
)
TENSOR = "lucid.Tensor"


def public_names(module) -> list[str]:
    """``__all__`` if the module has one, else its ``dir()`` less ``_`` names."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return list(names)


def tensor_members() -> list[str]:
    """The public methods and properties of :class:`lucid.Tensor` autodoc documents."""
    import lucid

    return sorted(
        name
        for name, value in vars(lucid.Tensor).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or isinstance(value, (property, staticmethod, classmethod)))
    )


def kind(value) -> str:
    """``"module"``, ``"class"``, ``"function"`` or ``"data"``."""
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        return "class"
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return "function"
    return "data"


def documented_names() -> set[str]:
    """Dotted names of every function and Tensor method the API pages document."""
    out = set()
    for ns in NAMESPACES:
        module = importlib.import_module(ns)
        for name in public_names(module):
            if kind(getattr(module, name)) == "function":
                out.add(f"{ns}.{name}")
    out.update(f"{TENSOR}.{m}" for m in tensor_members())
    return out


def _short_repr(value) -> bool:
    text = repr(value)
    return len(text) <= 60 and "\n" not in text and " at 0x" not in text


class Seen:
    """What the pages generated so far declared: each module gets one ``py:module``, and an
    object reached from several namespaces is documented in full once, under the first
    name (``lucid.no_grad``); the others (``lucid.autograd.no_grad``) get a short entry
    that points there, so the site has one description per object and an anchor per name."""

    def __init__(self):
        self.modules: set[str] = set()
        self.objects: dict[int, str] = {}


def _alias(group: str, ns: str, name: str, first: str, value) -> str:
    role = "class" if group == "class" else "func"
    try:
        sig = str(inspect.signature(value)) if group == "function" else ""
    except (TypeError, ValueError):
        sig = "(*args, **kwargs)"
    head = f".. py:{'class' if group == 'class' else 'function'}:: {name}{sig}\n   :module: {ns}"
    return f"{head}\n\n   The same object as :py:{role}:`{first}`.\n"


def summary_table(ns: str, group: str, module, names: list[str]) -> str:
    """A table of ``names`` (links) with the first sentence of each docstring, made safe
    to embed (:func:`rst.plain`) whatever markup the docstring uses."""
    role = {"class": "class", "function": "func", "data": "data"}[group]
    rows = []
    for n in names:
        value = getattr(module, n)
        doc = inspect.getdoc(value) if group != "data" else ""
        rows.append([f":py:{role}:`{n} <{ns}.{n}>`", rst.plain(rst.first_sentence(doc or ""))])
    return rst.table(["name", "summary"], rows, "30 70")


def namespace_page(ns: str, seen: Seen) -> str:
    """The page of namespace ``ns``; ``seen`` carries what earlier pages declared."""
    module = importlib.import_module(ns)
    groups: dict[str, list[str]] = {"class": [], "function": [], "data": [], "module": []}
    for name in public_names(module):
        groups[kind(getattr(module, name))].append(name)
    parts = [rst.title(ns), f".. automodule:: {ns}\n   :no-members:\n"]
    seen.modules.add(ns)
    headings = {"class": "Classes", "function": "Functions", "data": "Constants and objects"}
    for group, heading in headings.items():
        names = groups[group]
        if not names:
            continue
        parts.append(rst.title(heading, "-"))
        parts.append(summary_table(ns, group, module, names))
        for n in names:
            full = f"{ns}.{n}"
            value = getattr(module, n)
            if full == TENSOR:
                continue  # its own page
            if group in ("class", "function"):
                first = seen.objects.setdefault(id(value), full)
                if first != full:
                    parts.append(_alias(group, ns, n, first, value))
                    continue
            if group == "class":
                parts.append(f".. autoclass:: {full}\n   :members:\n   :show-inheritance:\n")
            elif group == "function":
                parts.append(f".. autofunction:: {full}\n")
            else:
                opt = "" if _short_repr(value) else "   :no-value:\n"
                parts.append(f".. autodata:: {full}\n{opt}")
    if groups["module"]:
        parts.append(rst.title("Submodules", "-"))
        later = []
        for n in groups["module"]:
            real = getattr(module, n).__name__
            if real in NAMESPACES:
                parts.append(f"* ``{ns}.{n}``: :doc:`{real}`")
            else:
                parts.append(f"* ``{ns}.{n}``: :py:mod:`{real}`")
                if real not in seen.modules:
                    seen.modules.add(real)
                    later.append(real)
        parts.append("")
        for real in later:  # last: py:module changes the current module of what follows
            summary = (inspect.getdoc(importlib.import_module(real)) or "").split("\n\n")[0]
            parts.append(f".. py:module:: {real}\n")
            parts.append((rst.plain(summary) if summary else f"Part of ``{ns}``.") + "\n")
    return "\n".join(parts)


def tensor_page() -> str:
    """The page of :class:`lucid.Tensor`: every public method and property."""
    return "\n".join(
        [
            rst.title(TENSOR),
            ".. py:currentmodule:: lucid\n",
            f".. autoclass:: {TENSOR}\n   :members:\n   :undoc-members:\n",
        ]
    )


def index_page() -> str:
    """The API index: a toctree of the namespace pages."""
    lines = [rst.title("API reference"), ".. toctree::", "   :maxdepth: 1", ""]
    lines.append(f"   api/{TENSOR}")
    lines.extend(f"   api/{ns}" for ns in NAMESPACES)
    return "\n".join(lines) + "\n"
