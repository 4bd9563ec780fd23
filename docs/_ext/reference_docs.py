"""Build-time generation of ``docs/_generated/reference.rst``: the code the other pages name.

The pages and the docstrings they include refer to modules, classes, functions and constants of sonnx
(``:mod:`sonnx.smt.solver```, ``:func:`sonnx.check```, ...). A reference is only a link when its target is
documented somewhere on the site; otherwise Sphinx shows it as plain code. This page declares each named
target with the first paragraph of its docstring as plain text (the references inside it are not
followed, so the page adds no target of its own to resolve), so that every such reference resolves.
The build runs in nitpicky mode
(``conf.py``): a reference to a target that is documented nowhere is a warning, and ``-W`` makes it an
error, so a new unresolved reference fails the build instead of rendering as code.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

from sonnx_docs import esc
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "_generated"

MODULES: tuple[str, ...] = (
    "sonnx.loader",
    "sonnx.checking.pipeline",
    "sonnx.execution.inputs",
    "sonnx.execution.inputs.domain",
    "sonnx.partition.verify",
    "sonnx.rules.determinism_table",
    "sonnx.rules.schemas",
    "sonnx.rules.graph_r2_conditions",
    "sonnx.rules.graph_arity",
    "sonnx.rules.premises",
    "sonnx.rules.ranks",
    "sonnx.smt.arrays",
    "sonnx.smt.certify",
    "sonnx.smt.common",
    "sonnx.smt.constants",
    "sonnx.smt.solver",
    "sonnx.smt.value_terms",
    "sonnx.smt.encodings.graph_determinism",
    "sonnx.rules.declarations",
)
"""Modules named by a ``:mod:`` reference of a page or of a docstring the site shows."""

OBJECTS: tuple[tuple[str, str], ...] = (
    ("function", "sonnx.checking.pipeline.check_models"),
    ("data", "sonnx.checking.proofs.SMT_AUTO_LIMIT"),
    ("data", "sonnx.checking.batch.MAX_ATTEMPTS"),
    ("class", "sonnx.checking.report.SmtSummary"),
    ("function", "sonnx.checking.agreement.combine"),
    ("class", "sonnx.base.verdict.Severity"),
    ("exception", "sonnx.base.errors.FunctionShadowingError"),
    ("exception", "sonnx.base.errors.BudgetExceeded"),
    ("class", "sonnx.model.graph.Model"),
    ("class", "sonnx.model.graph.InlinedCall"),
    ("class", "sonnx.model.semantics.Scheduler"),
    ("function", "sonnx.model.structure.walk_scopes"),
    ("class", "sonnx.differential.tolerance.Tolerance"),
    ("class", "sonnx.differential.run.OracleResult"),
    ("function", "sonnx.execution.inputs.inputs_for"),
    ("class", "sonnx.execution.inputs.source.InputSource"),
    ("class", "sonnx.execution.signature.OutputMisfit"),
    ("function", "sonnx.rules.premises.runtime_type"),
    ("function", "sonnx.rules.graph_attributes.blocked"),
    ("function", "sonnx.rules.graph_function_shadowing.standard_operators"),
    ("data", "sonnx.smt.common.PART"),
    ("function", "sonnx.smt.solver.solve"),
    ("class", "sonnx.smt.smtlib.Obligation"),
    ("class", "sonnx.smt.pool.Job"),
    ("data", "sonnx.smt.sizes.POOL_MIN_OPERATIONS"),
    ("class", "sonnx.base.workers.WorkerPool"),
    ("function", "sonnx.smt.encodings.graph_acyclic.rank_body"),
    ("function", "sonnx.smt.encodings.graph_c1.certificate_mode_obligations"),
    ("class", "sonnx.rules.declarations.Declarations"),
)
"""(Python domain directive, dotted name) of the other targets named by a reference."""


def _resolve(name: str) -> Any:
    """The module or object a dotted name denotes (a name that no longer exists fails the build)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _summary(name: str, obj: Any) -> str:
    """The first paragraph of the docstring as plain text (its own references are not followed), and the file."""
    doc = inspect.getdoc(obj) if not isinstance(obj, (int, str, float, tuple, frozenset)) else None
    first = " ".join((doc or "").split("\n\n")[0].split())
    module = obj if inspect.ismodule(obj) else importlib.import_module(getattr(obj, "__module__", None) or
                                                                       name.rsplit(".", 1)[0])
    where = Path(inspect.getfile(module)).resolve().relative_to(ROOT).as_posix()
    text = esc(first) if first else "\\-"
    return f"{text} (``{where}``)"


def _entry(directive: str, name: str) -> str:
    obj = _resolve(name)
    if directive == "module":
        return f".. py:module:: {name}\n\n{_summary(name, obj)}\n"
    if directive == "data":
        return f".. py:data:: {name}\n   :value: {obj!r}\n\n   {_summary(name, obj)}\n"
    return f".. py:{directive}:: {name}\n\n   {_summary(name, obj)}\n"


def reference_page() -> str:
    head = "Code reference"
    parts = [
        ".. _code-reference:\n",
        f"{head}\n{'=' * len(head)}\n",
        "The modules, classes, functions and constants that the other pages and the docstrings they show "
        "refer to, each with the first paragraph of its own documentation and its file, so that every such "
        "reference is a link. The public API is on :ref:`api`.\n",
        "Modules\n-------\n",
    ]
    parts.extend(_entry("module", name) for name in MODULES)
    parts.append("Names\n-----\n\n.. py:currentmodule:: None\n")
    parts.extend(_entry(directive, name) for directive, name in OBJECTS)
    return "\n".join(parts)


def generate(app: Sphinx, config: Any = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "reference.rst").write_text(reference_page(), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    # After sonnx_docs, which empties _generated/ at the same event (extensions connect in listed order).
    app.connect("config-inited", generate, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
