"""Sphinx configuration of the sonnx documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (warnings are errors).
The catalogue, tables, CLI reference and example outputs are generated at build
time from the code by the local extension ``_ext/sonnx_docs.py``, into
``docs/_generated/`` (not kept in version control).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import sonnx  # noqa: E402
from tools.site_check import EXTERNAL_PYTHON_NAMES  # noqa: E402

project = "sonnx"
author = "the sonnx authors"
copyright = "the sonnx authors"
version = release = sonnx.__version__

extensions = [
    "sphinx.ext.autodoc", "sphinx_needs", "sonnx_docs", "evidence_docs", "coq_docs", "reference_docs", "spec_docs",
    "example_docs", "seed_trace_docs", "myst_nb",
]

exclude_patterns = ["_build", ".gitignore", "_generated/determinism.rst"]  # included by the spec, not a page
html_theme = "alabaster"
html_extra_path = ["_generated/export"]
html_static_path = ["_static"]
html_css_files = ["sonnx.css"]
templates_path = ["_templates"]  # navigation.html: the sidebar lists the sections of the page being read
# Literal blocks are tool output and help texts, not Python: no highlighting unless a block names a language.
highlight_language = "none"

# Every cross-reference must resolve: with -W an unresolved one fails the build instead of showing as code.
# sonnx's own targets are documented on the pages or on _generated/reference (reference_docs.py). The names
# below belong to Python and NumPy; the build runs offline, without their inventories, so they stay text.
nitpicky = True
nitpick_ignore = [("py:class", name) for name in EXTERNAL_PYTHON_NAMES]
# Parts of subscripted annotations (``tuple[str, int]``, ``Literal['auto', ...]``) that autodoc splits at commas.
nitpick_ignore_regex = [(r"py:(class|obj)", r"(tuple|dict|frozenset|collections\.abc\.Mapping|typing\.Literal)\[.*")]

# sphinx-needs: one need per rule (type "rule") and per theorem (type "thm"); the rule links to the
# theorems that support it. needs.json (the machine-readable export) is written next to the HTML.
needs_types = [
    {"directive": "rule", "title": "Rule", "prefix": "", "color": "#BFD8D2", "style": "node"},
    {"directive": "thm", "title": "Theorem", "prefix": "THM-", "color": "#DCB239", "style": "node"},
]
needs_fields = {
    "severity": {"description": "severity of a violation (error or warning)", "nullable": True},
    "profile": {"description": "profile the rule belongs to", "nullable": True},
    "check": {"description": "module implementing the direct check", "nullable": True},
    "smt": {"description": "module of the SMT encoding, or 'no SMT encoding yet'", "nullable": True},
    "tests": {"description": "tests marked with the rule ID (pytest node IDs)", "nullable": True},
    "spec": {"description": "spec page and line of the rule's anchor", "nullable": True},
    "module": {"description": "theorem module under proofs/", "nullable": True},
    "result": {"description": "PROVED, PROVED resting on N review items, or FAILED, as obtained during this build", "nullable": True},
}
needs_id_regex = r"^[A-Z][A-Z0-9_-]{3,}$"
needs_id_required = True
needs_build_json = True
# A :need: reference shows the whole title (the default cuts it to 30 characters and an ellipsis).
needs_role_need_max_title_length = -1

# myst-nb: notebook.ipynb ("sonnx in a notebook") is run from top to bottom on every build, in docs/, and the
# build fails when a cell raises; the kernel imports sonnx from this checkout's src/, like this file does.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
# The pages are reStructuredText and notebooks only: myst-nb would also read every .md file under docs/
# (a README next to a page) as a page, so that suffix is taken back once the extensions have added theirs.
source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}
PAGE_SUFFIXES = tuple(source_suffix)


def only_page_suffixes(app: Sphinx, config: Config) -> None:
    """Drop every source suffix an extension added besides :data:`PAGE_SUFFIXES` (myst-nb adds ``.md``)."""
    for suffix in [s for s in config.source_suffix if s not in PAGE_SUFFIXES]:
        del config.source_suffix[suffix]


def setup(app: Sphinx) -> None:
    app.connect("config-inited", only_page_suffixes, priority=900)
