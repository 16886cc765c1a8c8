"""The backend contract, checked on the source: above the backends nothing imports NumPy
or CuPy, reaches into a backend's array module (``.xp``), tests NumPy dtype kinds or reads
array flags — so a CuPy backend can stand in for NumPy's. And the tensor layer does not
import the autograd or ops layers above it."""

import ast
import pathlib

import grimp
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "lucid"
ABOVE_BACKENDS = [
    "ops",
    "autograd",
    "_tensor",
    "nn",
    "optim",
    "utils",
    "distributed",
    "serialization",
]


def _sources(*dirs):
    for d in dirs:
        path = ROOT / d
        yield from [path] if path.is_file() else sorted(path.rglob("*.py"))


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.lineno, node.level


@pytest.mark.parametrize(
    "path", list(_sources(*ABOVE_BACKENDS)), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_array_library_above_the_backends(path):
    tree = ast.parse(path.read_text())
    for name, line, level in _imports(tree):
        assert level or name.split(".")[0] not in ("numpy", "cupy", "ml_dtypes"), (
            f"{path.name}:{line} imports {name}"
        )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("xp", "flags"), f"{path.name}:{node.lineno} .{node.attr}"
            if node.attr == "kind" and isinstance(node.value, ast.Attribute):
                assert node.value.attr != "dtype", f"{path.name}:{node.lineno} .dtype.kind"


@pytest.mark.parametrize("path", list(_sources("_tensor")), ids=lambda p: p.name)
def test_tensor_layer_imports_nothing_above_it(path):
    for name, line, level in _imports(ast.parse(path.read_text())):
        if level >= 2:
            assert name.split(".")[0] not in ("autograd", "ops", "nn", "optim", "amp"), (
                f"{path.name}:{line} imports ..{name}"
            )


def _cycles(edges):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges[w])))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_import_graph_has_no_cycle():
    """No module reaches itself through imports, function-local ones included (grimp reads
    every import statement of every module)."""
    graph = grimp.build_graph("lucid")
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []
