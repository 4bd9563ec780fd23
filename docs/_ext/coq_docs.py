"""Build-time listing of the Coq theorems and their assumptions for the "Proof results" page.

The spec's claims about the graph semantics (section 3.7 of spec/graph.rst)
cite Coq theorems of ``proofs/coq/``. A reader of the documentation must see,
for the build in front of them, that every one of those theorems was checked
and on what it rests. So at ``config-inited`` (after ``sonnx_docs`` has
recreated ``docs/_generated/``: this handler has a later priority) this
extension:

* reads ``proofs/coq/theorems.txt`` (the theorem table the checker enforces);
* when ``coqc`` is on the PATH, runs the checker itself
  (``tools.coq_check.check``: no ``Admitted``, ``admit`` or axiom, every file
  compiled, ``Print Assumptions`` of every listed theorem) in ``build/coq-docs``,
  writing ``docs/_generated/coq_assumptions.txt``; the compiling is skipped when
  the Coq step of ``make test`` has just checked the same inputs (a record in
  ``build/coq-verified``, ``tools/coq_record.py``), and the summary says so;
* writes ``docs/_generated/coq_theorems.inc``, which the generated proofs page
  includes: every theorem with the spec rule it supports and Coq's own
  ``Print Assumptions`` output.

Without ``coqc`` the section says so in a visible warning admonition and lists
the theorems as not checked in this build: never an empty or silently stale
list. A failing check is a build warning, so ``sphinx -W`` stops rather than
publish a page whose theorems did not check.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOG = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
OUT = DOCS / "_generated"
INCLUDE = OUT / "coq_theorems.inc"
LISTING = OUT / "coq_assumptions.txt"
BUILD = ROOT / "build" / "coq-docs"


def _indent(text: str, pad: str = "   ") -> str:
    return "\n".join(pad + line if line else "" for line in text.splitlines())


def _table(rows: list[tuple[str, str, str, str]]) -> str:
    """A list-table of (theorem, file, rule, assumptions) rows; the assumptions cell is a literal block."""
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 35 15 15 35", ""]
    lines += ["   * - Coq theorem", "     - File", "     - Supports", "     - ``Print Assumptions``"]
    for name, file, rule, assumed in rows:
        lines += [f"   * - ``{name}``", f"     - ``proofs/coq/{file}``", f"     - :ref:`{rule}`"]
        lines += ["     - ::", "", _indent(assumed, "          "), ""]
    return "\n".join(lines) + "\n"


def _printed(listing: str) -> dict[str, str]:
    """Theorem full name -> its ``Print Assumptions`` text, from the checker's listing file."""
    out: dict[str, str] = {}
    current = ""
    for line in listing.splitlines():
        if line.startswith("SONNX."):
            current = line.split()[0]
            out[current] = ""
        elif current and line.startswith("    "):
            out[current] += line[4:] + "\n"
    return {k: v.strip() for k, v in out.items()}


def section() -> str:
    """The reStructuredText of the Coq section, running the Coq check when ``coqc`` is present."""
    from tools import coq_check

    project = coq_check.PROJECT
    _root, files = coq_check.read_project(project)
    entries = coq_check.read_table(project, files)
    head = [".. _coq-theorems:", "", "Coq theorems (``proofs/coq/``)", "-" * 30, ""]
    head.append(
        "The graph semantics of spec section 3 and the theorems the spec cites (section 3.7) are proved in "
        "Coq 8.16 with the standard library only. ``python -m tools.coq_check`` (``make proofs``) refuses "
        "``Admitted``, ``admit``, axioms and global section variables, compiles every file of "
        "``proofs/coq/_CoqProject``, and prints Coq's ``Print Assumptions`` for every theorem of "
        "``proofs/coq/theorems.txt``; each must be \"Closed under the global context\" (it rests on no "
        "axiom) unless the table allows a named assumption.\n"
    )
    if shutil.which("coqc") is None:
        head += [
            ".. warning::",
            "",
            "   The Coq check did not run in this build: ``coqc`` was not found. The theorems below are "
            "listed from ``proofs/coq/theorems.txt`` but were **not checked** here; install Debian's "
            "``coq`` (``apt-get install coq``) and rebuild, or run ``make proofs``.",
            "",
        ]
        rows = [(e.qualified, e.file, e.rule, "not checked in this build (coqc not found)") for e in entries]
        return "\n".join(head) + "\n" + _table(rows)
    try:
        summary = coq_check.check(project, BUILD, LISTING, say=False, verified=coq_check.VERIFIED)
    except (coq_check.CoqCheckFailed, coq_check.CoqCheckUnusable) as failure:
        LOG.warning("Coq check FAILED: %s", failure)
        head += [".. error::", "", f"   The Coq check FAILED in this build: ``{failure}``", ""]
        rows = [(e.qualified, e.file, e.rule, "not established (the Coq check failed)") for e in entries]
        return "\n".join(head) + "\n" + _table(rows)
    printed = _printed(LISTING.read_text(encoding="utf-8"))
    head.append(f"Result of this build: **{summary}**.\n")
    rows = [(e.qualified, e.file, e.rule, printed[e.qualified]) for e in entries]
    return "\n".join(head) + "\n" + _table(rows)


def generate(app: Sphinx, config: Any = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    INCLUDE.write_text(section(), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", generate, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
