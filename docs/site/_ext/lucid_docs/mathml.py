"""Render Sphinx's maths nodes to MathML at build time, with ``latex2mathml``.

Browsers render MathML natively, so the pages need no JavaScript and no network: the site
reads the same from ``file://`` as from a server. Registered as the HTML maths renderer
``"mathml"`` (``html_math_renderer = "mathml"`` in conf.py).

A formula latex2mathml cannot convert, or one with a command it does not know (which it
would pass through as raw TeX), is reported as a Sphinx warning at its source location (an
error under ``-W``) and shown as its TeX in a ``<code>`` element, never silently dropped.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.util import logging

logger = logging.getLogger(__name__)

# TeX that MathJax knows and latex2mathml does not, with an equivalent it renders: each
# entry is a spelling our docstrings use (``\arg`` would come out as the text "\arg").
_REWRITES = ((re.compile(r"\\arg(?![A-Za-z])"), r"\\operatorname{arg}"),)
# latex2mathml passes a command it does not know through as an identifier: ``<mi>\foo</mi>``
_UNKNOWN = re.compile(r"<m[a-z]+>(\\[A-Za-z]+)")


class UnknownCommand(ValueError):
    """A TeX command that latex2mathml does not know (it would show as raw TeX)."""


def to_mathml(tex: str, display: str) -> str:
    """The MathML of one formula ``tex``; ``display`` is ``"inline"`` or ``"block"``."""
    for pattern, new in _REWRITES:
        tex = pattern.sub(new, tex)
    out = convert(tex.strip(), display=display)
    unknown = _UNKNOWN.search(out)
    if unknown:
        raise UnknownCommand(f"unknown command {unknown.group(1)}")
    return out


def _render(self, node, tex: str, display: str) -> str:
    try:
        return to_mathml(tex, display)
    except Exception as exc:  # latex2mathml raises its own types and plain ones
        logger.warning("MathML: cannot render %r (%s)", tex, exc, location=node)
        return f'<code class="math-error">{html.escape(tex)}</code>'


def visit_math(self, node: nodes.math) -> None:
    """Inline maths (``:math:`...```): one ``<math display="inline">`` in a span."""
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(_render(self, node, node.astext(), "inline"))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_math_block(self, node: nodes.math_block) -> None:
    """Block maths (``.. math::``): one ``<math display="block">`` per equation (Sphinx
    separates equations of one directive by a blank line), with the equation number."""
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    for part in node.astext().split("\n\n"):
        if part.strip():
            tex = part if r"\\" not in part else r"\begin{aligned}" + part + r"\end{aligned}"
            self.body.append(_render(self, node, tex, "block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    """Register the renderer; conf.py selects it with ``html_math_renderer``."""
    app.add_html_math_renderer(
        "mathml", inline_renderers=(visit_math, None), block_renderers=(visit_math_block, None)
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
