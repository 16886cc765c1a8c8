"""One page per registered op, generated from the registry (``all_ops()``).

A page shows, in the order of the reference page it models (the node ``ExpBackward`` for the
op ``exp``): the class docstring (summary, Math, Attributes, Notes), the Python functions
that reach the op, the schema as a table, what the node saves for backward, the dtype and
autocast rules the schema implies, the forward ``dispatch`` with the backend kernels it calls
(interface, CPU and CUDA implementations, with their source), and the gradient: the one
formula ``grad`` and how the eager and graph-mode backwards come from it.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import textwrap
from collections import defaultdict

from lucid.ops.core.base import Op
from lucid.ops.core.registry import all_ops
from lucid.ops.core.schema import AmpPolicy

from . import kernels, rst

# Namespaces whose functions count as Python entry points of an op, and where they link.
WRAPPER_NAMESPACES = (
    "lucid",
    "lucid.ops",
    "lucid.nn.functional",
    "lucid.linalg",
    "lucid.special",
    "lucid.fft",
)

_AMP = {
    AmpPolicy.PROMOTE: "under ``lucid.amp.autocast`` floating inputs are cast to the "
    "autocast dtype (float16 / bfloat16); on the CPU backend half types compute in float32 "
    "and the result is cast back",
    AmpPolicy.PROMOTE_FIRST: "under autocast the first input (the activation) is cast to "
    "the autocast dtype; the op casts the others (weights, bias) itself, so their gradients "
    "come back in their own dtypes",
    AmpPolicy.KEEP_INPUT: "runs in the inputs' own dtype, under autocast too",
    AmpPolicy.FORCE_FP32: "computes in float32 under autocast whatever the autocast dtype, "
    "so half inputs do not overflow or underflow early",
}


def defining(cls, attr: str):
    """The class of ``cls``'s MRO whose own namespace defines ``attr``."""
    for k in cls.__mro__:
        if attr in k.__dict__:
            return k
    raise AttributeError(f"{cls.__name__} has no {attr}")


def dispatch_fn(cls):
    """The plain function behind ``cls.dispatch`` (a staticmethod, maybe inherited)."""
    member = defining(cls, "dispatch").__dict__["dispatch"]
    return member.__func__ if isinstance(member, staticmethod) else member


def input_names(cls) -> list[str]:
    """The array parameters of ``dispatch`` after the backend (``*xs`` for variable arity)."""
    params = list(inspect.signature(dispatch_fn(cls)).parameters.values())[1:]
    names = []
    for p in params:
        if p.kind is p.POSITIONAL_OR_KEYWORD or p.kind is p.POSITIONAL_ONLY:
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            names.append("*" + p.name)
    return names


def input_label(names: list[str], i: int) -> str:
    """The name of input ``i`` among ``dispatch``'s array parameters ``names``: its own
    name, or ``wb[1]`` for the second array of a ``*wb`` parameter."""
    for k, name in enumerate(names):
        if name.startswith("*"):
            return f"{name[1:]}[{i - k}]" if i >= k else names[i]
        if k == i:
            return name
    return f"input {i}"


def _source(fn) -> str:
    return textwrap.dedent(inspect.getsource(fn))


def _where(fn) -> str:
    path = kernels._rel(inspect.getsourcefile(fn))
    return f"{path}:{inspect.getsourcelines(fn)[1]}"


# -- the Python functions that reach each op -------------------------------------------------


def _op_refs(fn, ops: set, seen: set, depth: int = 0) -> set:
    """Op classes that ``fn`` applies: the globals and closure cells it reads (an op class,
    or a bound ``cls.call``), through private helpers of Lucid's own modules."""
    if id(fn) in seen:
        return set()
    seen.add(id(fn))
    try:
        names = inspect.getclosurevars(inspect.unwrap(fn))
    except (TypeError, ValueError):
        return set()
    found = set()
    for name, value in [*names.nonlocals.items(), *names.globals.items()]:
        owner = getattr(value, "__self__", value)
        if isinstance(owner, type) and owner in ops:
            found.add(owner)
        elif (
            depth < 3
            and inspect.isfunction(value)
            and name.startswith("_")
            and value.__module__.startswith("lucid")
        ):
            found |= _op_refs(value, ops, seen, depth + 1)
    return found


def wrapper_index() -> dict:
    """Op class -> sorted dotted names of the public functions and Tensor methods using it."""
    import lucid

    ops = set(all_ops().values())
    index = defaultdict(set)
    for ns in WRAPPER_NAMESPACES:
        module = importlib.import_module(ns)
        for name in getattr(module, "__all__", None) or [
            n for n in dir(module) if not n.startswith("_")
        ]:
            fn = getattr(module, name, None)
            if inspect.isfunction(fn):
                for cls in _op_refs(fn, ops, set()):
                    index[cls].add(f"{ns}.{name}")
    for name, fn in vars(lucid.Tensor).items():
        if inspect.isfunction(fn) and (not name.startswith("_") or name.startswith("__")):
            for cls in _op_refs(fn, ops, set()):
                index[cls].add(f"lucid.Tensor.{name}")
    return {cls: sorted(names) for cls, names in index.items()}


# -- the sections of a page ------------------------------------------------------------------


def schema_table(schema) -> str:
    """Every field of the op's ``OpSchema`` and its value."""
    rows = []
    for field in dataclasses.fields(schema):
        value = getattr(schema, field.name)
        shown = f"``AmpPolicy.{value.name}``" if isinstance(value, AmpPolicy) else None
        rows.append(
            [f"``{field.name}``", shown or (rst.literal(repr(value)) if value != "" else "—")]
        )
    return rst.table(["field", "value"], rows, "30 70")


def saved_section(cls) -> str:
    """What the node keeps for its backward: inputs, output, intermediates of dispatch."""
    names = input_names(cls)
    want = cls.saves_input
    lines = []
    if want is True:
        lines.append("* **inputs**: all of them (" + ", ".join(map(rst.literal, names)) + ").")
    elif want == "others":
        lines.append("* **inputs**: for each input's gradient, every *other* input.")
    elif want:
        lines.append(
            "* **inputs**, per input whose gradient is wanted (only those needed "
            "by the gradients actually asked for are kept):"
        )
        lines.append("")  # a nested list, after a blank line
        for i, needs in enumerate(want):
            kept = ", ".join(rst.literal(input_label(names, j)) for j in needs) or "no input"
            lines.append(f"  * the gradient of {rst.literal(input_label(names, i))} needs {kept}")
        lines.append("")
    else:
        lines.append("* **inputs**: none.")
    lines.append(
        "* **output**: "
        + ("saved (the formula reuses the result)." if cls.saves_output else "not saved.")
    )
    if cls.saves_extra:
        lines.append(
            "* **intermediates of dispatch** (``saves_extra``): "
            + ", ".join(map(rst.literal, cls.saves_extra))
            + " — returned by ``dispatch`` after the outputs, kept on the node, "
            "never exposed as outputs."
        )
    lines.append("")
    lines.append(
        "Each saved tensor's version counter is recorded; an in-place write to it "
        "before the backward raises a clear error."
    )
    return "\n".join(lines) + "\n"


def dtype_rules(schema) -> str:
    """The dtype, autocast, determinism and capture rules the schema implies."""
    out = [f"* **autocast** (``AmpPolicy.{schema.amp_policy.name}``): {_AMP[schema.amp_policy]}."]
    if schema.real_valued:
        out.append(
            "* **real-valued**: bool and integer inputs compute in the default float "
            "dtype (``lucid.get_default_dtype()``, float32 unless changed)."
        )
    else:
        out.append("* integer and bool inputs keep their dtype (the op is not real-valued).")
    complex_text = {
        None: "refused: a complex input raises ``DTypeError`` naming the op.",
        "holomorphic": "accepted; the real formula is the complex derivative, run as "
        r":math:`\overline{f'(z)}\,g` (PyTorch's convention, the gradient with respect to "
        r":math:`\bar z`).",
        "custom": "accepted; the op's ``grad`` handles complex data itself.",
    }[schema.complex_grad]
    out.append(f"* **complex** (``complex_grad={schema.complex_grad!r}``): {complex_text}")
    if not schema.differentiable:
        out.append("* **not differentiable**: the result is integer or bool; no node is recorded.")
    elif schema.differentiable_outputs is not None:
        out.append(
            "* gradients flow through outputs "
            + ", ".join(map(str, schema.differentiable_outputs))
            + " only."
        )
    if schema.deterministic:
        out.append("* **deterministic**: the same inputs give the same result on every run.")
    else:
        note = f" {schema.determinism_note}" if schema.determinism_note else ""
        where = ", ".join(schema.nondeterministic_on)
        out.append(
            f"* **nondeterministic** on {where}.{note} Under "
            "``lucid.use_deterministic_algorithms(True)`` the op raises there."
        )
    out.append(
        "* **lucid.compile**: "
        + (
            "capturable (replayed from the recorded kernel stream)."
            if schema.capturable
            else "not capturable: its output's shape depends on the input's values, so a "
            "call is a graph break."
        )
    )
    if schema.internal:
        out.append("* **internal**: serves other ops' backward; not part of the public API.")
    return "\n".join(out) + "\n"


def _impl_cell(impl) -> str:
    if impl is None:
        return "—"
    where = f"``{impl.owner}``" + (" (shared)" if impl.shared else "")
    return f"{where}\n\n``{impl.path}:{impl.line}``"


def dispatch_section(cls) -> str:
    """The forward's source, the kernels it calls, and each kernel's implementations."""
    fn = dispatch_fn(cls)
    owner = defining(cls, "dispatch")
    sig = str(inspect.signature(fn))
    out = [f".. py:method:: {cls.__name__}.dispatch{sig}", "   :staticmethod:", ""]
    calls = kernels.backend_calls(fn)
    summary = (
        "The forward, on backend arrays: calls " + ", ".join(f"``be.{c}``" for c in calls) + "."
        if calls
        else "The forward, on backend arrays (calls no backend kernel directly; see the source)."
    )
    out.append(rst.indent(summary))
    if owner is not cls:
        out.append(rst.indent(f"\nInherited from ``{owner.__qualname__}``."))
    out.append("")
    out.append(rst.indent(rst.code(_source(fn), caption=_where(fn))))
    out.append("")
    if not calls:
        return "\n".join(out)
    rows, sources = [], []
    for name in calls:
        k = kernels.kernel(name)
        iface = f"``{k.interface}``: {k.summary}" if k.interface else "(not in the interface)"
        rows.append([f"``{name}``", iface, _impl_cell(k.cpu), _impl_cell(k.cuda)])
        impls = [("CPU (NumPy)", k.cpu), ("CUDA (CuPy)", k.cuda)]
        if k.cpu is not None and k.cpu == k.cuda:
            impls = [("CPU and CUDA (one shared implementation)", k.cpu)]
        for label, impl in impls:
            if impl is not None:
                body = rst.code(impl.source, caption=f"{impl.path}:{impl.line}")
                sources.append(rst.details(f"be.{name} — {label}: {impl.owner}", body))
    out.append(
        "Kernels, per backend (the CPU backend runs NumPy, the CUDA backend CuPy; a "
        "shared implementation in ``lucid/backend/array`` serves both through the "
        "backend's array module ``xp``):\n"
    )
    out.append(rst.table(["kernel", "interface", "CPU", "CUDA"], rows, "15 35 25 25"))
    out.extend(sources)
    return "\n".join(out)


def gradient_section(cls) -> str:
    """The one formula ``grad`` and the two backward forms derived from it."""
    own_forms = [m for m in ("grad_formula", "grad_formula_impl") if defining(cls, m) is not Op]
    grad_owner = defining(cls, "grad")
    out = []
    if grad_owner is Op and not own_forms:
        out.append(
            f"``{cls.__name__}`` has no gradient: ``grad`` is the base class's, which "
            "raises ``AutogradError``"
            + (
                " (the schema says ``differentiable=False``: no node is recorded)."
                if not cls.schema_v1.differentiable
                else "."
            )
        )
        return "\n".join(out) + "\n"
    if not own_forms:
        fn = grad_owner.__dict__["grad"]
        sig = str(inspect.signature(fn)).replace("(self, ", "(", 1)
        out += [f".. py:method:: {cls.__name__}.grad{sig}", ""]
        out.append(
            rst.indent(
                "The gradient, written once. ``g`` is the incoming gradient, then the saved "
                "inputs (``None`` where not saved) and the saved output; ``F`` is the namespace "
                "the formula calls."
                + (
                    f" Inherited from ``{grad_owner.__qualname__}``."
                    if grad_owner is not cls
                    else ""
                )
            )
        )
        out.append("")
        out.append(rst.indent(rst.code(_source(fn), caption=_where(fn))))
        out.append("")
        eager = (
            "The eager backward: ``grad`` with ``F`` = the node's backend on "
            "backend arrays (no graph is recorded). Used by ``backward()`` unless "
            "``create_graph=True``."
        )
        graph = (
            "The graph-mode backward: ``grad`` with ``F`` = "
            "``lucid.ops.core.graph_ns`` (Lucid ops) on Tensors, so the gradient is "
            "itself recorded and can be differentiated again (``create_graph=True``, "
            "Hessians, gradient penalties)."
        )
        out.append(
            "Both backward forms are derived from this one formula by the base "
            "class ``lucid.ops.core.base.Op``, so they cannot drift apart:\n"
        )
        out += [f".. py:method:: {cls.__name__}.grad_formula(grad)", "", rst.indent(eager), ""]
        out += [
            f".. py:method:: {cls.__name__}.grad_formula_impl(grad, *args)",
            "",
            rst.indent(graph),
            "",
        ]
        return "\n".join(out)
    out.append(
        "This node writes its two backward forms by hand rather than one ``grad`` (the "
        "op's Notes say why): the eager one on arrays, the graph-mode one on Tensors.\n"
    )
    for name in own_forms:
        fn = defining(cls, name).__dict__[name]
        sig = str(inspect.signature(fn)).replace("(self, ", "(", 1)
        doc = inspect.cleandoc(fn.__doc__) if fn.__doc__ else ""  # its own, not the base's
        out += [f".. py:method:: {cls.__name__}.{name}{sig}", ""]
        if doc:
            out += [rst.indent(doc), ""]
        out += [rst.indent(rst.code(_source(fn), caption=_where(fn))), ""]
    return "\n".join(out)


def wrappers_line(names: list[str], documented: set[str]) -> str:
    """The functions that reach the op, linked where the API pages document them."""
    if not names:
        return (
            "*No public function applies this op directly*: other ops reach it (an "
            "internal op of a backward, a scalar fast path, or a fused kernel)."
        )
    shown = []
    for name in names:
        if name in documented:
            role = "meth" if name.startswith("lucid.Tensor.") else "func"
            shown.append(f":py:{role}:`{name}`")
        else:
            shown.append(rst.literal(name))
    return "**Python functions**: " + ", ".join(shown)


def op_page(cls, napoleon, wrappers: list[str], documented: set[str]) -> str:
    """The reStructuredText of the page of op class ``cls``."""
    schema = cls.schema_v1
    node = cls.__name__
    doc = napoleon(inspect.cleandoc(cls.__doc__ or ""), cls)
    parts = [
        f".. _op-{schema.name}:\n",
        f".. meta::\n   :description: The op {schema.name} and its autograd node {node}.\n",
        rst.title(f"{schema.name} — {node}"),
        f".. py:currentmodule:: {cls.__module__}\n",
        f".. py:class:: {node}\n",
        rst.indent(doc),
        "",
        rst.indent(
            f"Registered as ``{schema.name!r}`` (version {schema.version}) in "
            f"``{cls.__module__}``; the autograd node a call records is "
            f"``{node}`` (``grad_fn.name()``)."
        ),
        "",
        rst.indent(wrappers_line(wrappers, documented)),
        "",
        rst.title("Schema", "-"),
        schema_table(schema),
        rst.title("Dtypes and autocast", "-"),
        dtype_rules(schema),
        rst.title("Saved for backward", "-"),
        saved_section(cls),
        rst.title("Dispatch", "-"),
        dispatch_section(cls),
        rst.title("Gradient", "-"),
        gradient_section(cls),
    ]
    return "\n".join(parts)


def family_title(module_name: str) -> str:
    """``lucid.ops.elementwise.exp_log`` -> ``elementwise.exp_log``."""
    return module_name.removeprefix("lucid.ops.")


def index_page(ops: dict) -> str:
    """The op index: every op by family module, with the family's summary."""
    families = defaultdict(list)
    for name, cls in sorted(ops.items()):
        families[cls.__module__].append((name, cls))
    parts = [
        rst.title("Ops"),
        f"Every op of the registry (``lucid.ops.core.registry.all_ops()``, {len(ops)} ops), "
        "one page each, grouped by the module that defines the family. A page is named "
        "after the op and its autograd node (``exp — ExpBackward``).\n",
    ]
    for module_name in sorted(families):
        module = importlib.import_module(module_name)
        summary = (inspect.getdoc(module) or "").split("\n\n")[0]
        parts.append(rst.title(family_title(module_name), "-"))
        if summary:
            parts.append(summary + "\n")
        parts.append(".. toctree::\n   :maxdepth: 1\n")
        for name, _cls in families[module_name]:
            parts.append(f"   ops/{name}")
        parts.append("")
    return "\n".join(parts)
