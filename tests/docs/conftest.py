"""The documentation site, built once per test session as ``make docs`` builds it.

The build is Sphinx's, with warnings as errors (``-W --keep-going``) into
``docs/site/_build/html``: after ``make docs`` (which ``make test`` runs first) it is an
incremental build that rereads nothing; from a fresh clone it is the full build.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "docs" / "site"
HTML = SOURCE / "_build" / "html"
BUILD = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-j", "auto"]


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site's root folder; the build must succeed with no warning."""
    run = subprocess.run(
        [*BUILD, str(SOURCE), str(HTML)], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, f"sphinx-build failed:\n{run.stdout}\n{run.stderr}"
    assert "WARNING" not in run.stderr and "ERROR" not in run.stderr, run.stderr
    return HTML


@pytest.fixture(scope="session")
def inventory(site: Path) -> dict:
    """``objects.inv`` of the site: ``{role: {name: uri}}`` (``py:class``, ``py:function``,
    ``py:module``, ``std:doc``, ...), the uri with its ``#anchor``."""
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    return {role: {name: _uri(item) for name, item in items.items()} for role, items in inv.items()}


def _uri(item) -> str:
    return item.uri if hasattr(item, "uri") else item[2]  # a named item since Sphinx 8.2
