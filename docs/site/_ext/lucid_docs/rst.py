"""Small helpers that write reStructuredText: indentation, tables, code blocks."""

from __future__ import annotations

import re
import textwrap


def indent(text: str, n: int = 3) -> str:
    """``text`` indented by ``n`` spaces (blank lines stay empty)."""
    return textwrap.indent(text, " " * n, lambda line: line.strip() != "")


def title(text: str, char: str = "=") -> str:
    """A section title underlined with ``char``."""
    return f"{text}\n{char * len(text)}\n"


def literal(text: str) -> str:
    """Inline literal ``text`` (backquotes cannot occur in Python identifiers or reprs we
    show, so no escaping beyond that is needed)."""
    return "``" + str(text).replace("`", "'") + "``"


def table(header: list[str], rows: list[list[str]], widths: str | None = None) -> str:
    """A ``list-table`` with one header row; cells are RST (inline markup allowed)."""
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append(f"   :widths: {widths}")
    out.append("")
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            lead = "   * - " if i == 0 else "     - "
            cell = str(cell) if str(cell).strip() else "\\"
            lines = cell.splitlines() or [""]
            out.append(lead + lines[0])
            out.extend("       " + line if line else "" for line in lines[1:])
    return "\n".join(out) + "\n"


def code(source: str, language: str = "python", caption: str | None = None) -> str:
    """A ``code-block`` of ``source``."""
    head = f".. code-block:: {language}\n"
    if caption:
        head += f"   :caption: {caption}\n"
    return head + "\n" + indent(source.rstrip("\n")) + "\n"


def details(summary: str, body: str) -> str:
    """``body`` (RST) folded under an HTML ``<details>`` element titled ``summary``."""
    summary = summary.replace("&", "&amp;").replace("<", "&lt;")
    return (
        ".. raw:: html\n\n"
        f'   <details class="lucid-source"><summary>{summary}</summary>\n\n'
        f"{body}\n"
        ".. raw:: html\n\n   </details>\n"
    )


_LITERAL = re.compile(r"(``.+?``)")
_ROLE = re.compile(r":(?:[a-z]+:)+`~?([^`]+)`")


def plain(text: str) -> str:
    """``text`` (a docstring summary) made safe to embed: inline literals kept, roles turned
    into literals, and the characters RST would read as markup (``*``, ``|``, a trailing
    ``_``, a lone backquote) escaped, so a summary can never break the page it lands in."""
    out = []
    for piece in _LITERAL.split(_ROLE.sub(r"``\1``", text)):
        if piece.startswith("``") and piece.endswith("``") and len(piece) > 4:
            out.append(piece)
        else:
            out.append(re.sub(r"([\\*|_`])", r"\\\1", piece))
    return "".join(out)


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph (a period followed by a space,
    outside inline literals: ``0 .. n - 1`` does not end one)."""
    para = " ".join(doc.strip().split("\n\n")[0].split())
    done = []
    for piece in _LITERAL.split(para):
        if piece.startswith("``") and piece.endswith("``") and len(piece) > 4:
            done.append(piece)
            continue
        end = re.search(r"\.(\s|$)", piece)
        if end:
            done.append(piece[: end.start() + 1])
            return "".join(done)
        done.append(piece)
    return "".join(done)
