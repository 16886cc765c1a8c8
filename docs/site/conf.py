"""Sphinx configuration of Lucid's documentation site (``make docs``).

The op and API pages are generated at build time by the local extension ``lucid_docs``
(``_ext/lucid_docs``): one page per registered op from the registry, one page per public
namespace over autodoc. Maths is rendered to MathML at build time (``lucid_docs.mathml``),
so the site needs no JavaScript for it and no network at all.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent.parent))  # the repository: import the lucid being documented

project = "Lucid"
author = "the Lucid authors"
copyright = "the Lucid authors"
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "lucid_docs",
]

exclude_patterns = ["_build", "README.md"]
templates_path: list[str] = []

# -- maths: MathML at build time ------------------------------------------------------------
html_math_renderer = "mathml"

# -- docstrings: NumPy style --------------------------------------------------------------
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # Attributes as fields: no second description of a documented member
napoleon_custom_sections = ["Math"]  # the ops' Math section (DESIGN.md), a rubric like Notes
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options: dict = {}
add_module_names = False
# Objects stay out of the table of contents: the API pages document hundreds each, and the
# sidebar (Furo's navigation, resolved on every page) would copy them all for every page.
toc_object_entries = False

# -- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = "Lucid"
html_static_path = ["_static"]
html_css_files = ["lucid.css"]
html_show_sourcelink = False
html_copy_source = False
