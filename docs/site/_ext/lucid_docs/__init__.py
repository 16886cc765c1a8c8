"""Lucid's Sphinx extension: the generated pages (ops, API) and the MathML renderer.

At ``builder-inited`` it writes ``generated/ops/*.rst`` (one page per registered op) and
``generated/api/*.rst`` (one page per public namespace) into the source directory, rewriting
only the files whose text changed so an incremental build stays incremental; files of ops
or namespaces that no longer exist are removed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from . import api, mathml, ops


def _napoleon(app):
    """NumPy-style docstring -> reStructuredText for the op pages: the site's napoleon
    settings, except that Attributes become ``py:attribute`` entries of the node class
    (``ExpBackward.schema_v1``), under an "Attributes" heading as on the reference page."""
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring

    config = Config(
        napoleon_use_ivar=False, napoleon_custom_sections=app.config.napoleon_custom_sections
    )

    def convert(doc: str, obj) -> str:
        name = f"{obj.__module__}.{obj.__qualname__}"
        text = str(NumpyDocstring(doc, config, app, what="class", name=name, obj=obj))
        first = text.find(".. attribute::")  # napoleon gives the entries no heading
        return text if first < 0 else f"{text[:first]}.. rubric:: Attributes\n\n{text[first:]}"

    return convert


def _write(folder: Path, pages: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in set(folder.glob("*.rst")) - {folder / f"{n}.rst" for n in pages}:
        stale.unlink()
    for name, text in pages.items():
        path = folder / f"{name}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def generate(app) -> None:
    """Write the op and API pages under ``<srcdir>/generated``."""
    from lucid.ops.core.registry import all_ops

    out = Path(app.srcdir) / "generated"
    registry = all_ops()
    convert = _napoleon(app)
    wrappers = ops.wrapper_index()
    documented = api.documented_names()
    pages = {
        name: ops.op_page(cls, convert, wrappers.get(cls, []), documented)
        for name, cls in registry.items()
    }
    _write(out / "ops", pages)
    _write(out, {"ops": ops.index_page(registry), "api": api.index_page()})
    seen = api.Seen()
    api_pages = {ns: api.namespace_page(ns, seen) for ns in api.NAMESPACES}
    api_pages[api.TENSOR] = api.tensor_page()
    _write(out / "api", api_pages)


def _code_version() -> int:
    """A number that changes with this extension's source, given to Sphinx as the
    ``env_version``: editing the generator rebuilds every page, not only the changed ones."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return int(digest.hexdigest()[:8], 16)


def setup(app):
    """Sphinx entry point (``extensions = ["lucid_docs"]`` in conf.py)."""
    app.setup_extension("sphinx.ext.napoleon")
    mathml.setup(app)
    app.connect("builder-inited", generate)
    return {
        "env_version": _code_version(),
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
