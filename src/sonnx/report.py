"""Rendering check results: a readable text report and schema-versioned JSON.

The JSON layout is versioned by ``schema_version``; every list keeps a fixed
order (models in command-line order, verdicts in rule-table order), so two
runs on the same input give the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from . import __version__
from .check import ModelReport
from .model.graph import Model
from .text import printable
from .verdict import Status, Verdict

JSON_SCHEMA_VERSION = 1
MAX_TEXT_ITEMS = 8


def model_summary(model: Model) -> dict[str, Any]:
    """Facts about a loaded model for the report header."""
    nested = sum(1 for _ in model.graph.nested()) - 1
    return {
        "ir_version": model.ir_version,
        "opset_imports": {(k or "ai.onnx"): v for k, v in sorted(model.opset_imports.items())},
        "operations": len(model.graph.operations),
        "nested_graphs": nested,
        "functions": [f"{f.domain}.{f.name}" for f in model.functions],
        "weights_loaded": model.weights_loaded,
    }


def _format_item(value: Any, nested: bool = False) -> str:
    """Witness data as compact text: dicts as ``k=v``, lists cut after MAX_TEXT_ITEMS items."""
    if isinstance(value, dict):
        body = ", ".join(f"{k}={_format_item(v, True)}" for k, v in value.items())
        return f"({body})" if nested else body
    if isinstance(value, list):
        shown = [_format_item(v, True) for v in value[:MAX_TEXT_ITEMS]]
        more = f" ... ({len(value) - MAX_TEXT_ITEMS} more)" if len(value) > MAX_TEXT_ITEMS else ""
        return "[" + "; ".join(shown) + more + "]"
    return str(value)


def verdict_lines(v: Verdict, title: str, width: int = 22) -> list[str]:
    """The text lines of one verdict: status, rule (in a column ``width`` wide), title, then witness or reason."""
    tag = v.status.value
    if v.status is Status.VIOLATED and v.severity.value == "warning":
        tag = "WARNING"
    lines = [f"  {tag:<9} {v.rule_id:<{width}} {title}"]
    # every field may hold names from the model: one line each, controls escaped (sonnx.text)
    if v.witness is not None:
        lines.append(f"            witness: {printable(v.witness.summary)}")
        for key, value in v.witness.data.items():
            lines.append(f"              {key}: {printable(_format_item(value))}")
    if v.reason is not None:
        lines.append(f"            reason: {printable(v.reason)}")
    for key, value in v.details.items():
        lines.append(f"            {key}: {printable(_format_item(value))}")
    return lines


def text_report(reports: Sequence[ModelReport], titles: dict[str, str], profile: str) -> str:
    """The human-readable report of one or more model checks."""
    out: list[str] = []
    for r in reports:
        out.append(f"model: {printable(r.path)}")
        if r.error is not None:
            out.append(f"  ERROR     {printable(r.error.one_line())}")
            out.append("result: ERROR (the model could not be checked; exit 2)")
            out.append("")
            continue
        assert r.model is not None
        s = model_summary(r.model)
        opsets = ", ".join(f"{k} {v}" for k, v in s["opset_imports"].items())
        out.append(
            f"  IR {s['ir_version']}, opsets: {opsets or 'none'}; {s['operations']} operations, "
            f"{s['nested_graphs']} nested graphs; profile {profile}"
            + ("" if s["weights_loaded"] else "; weights not read")
        )
        width = max([22, *(len(v.rule_id) for v in r.all_verdicts())])
        for v in r.all_verdicts():
            out.extend(verdict_lines(v, titles.get(v.rule_id, ""), width))
        if r.smt is not None and "skipped" in r.smt:
            out.append(f"  note: SMT engine not run: {r.smt['skipped']}")
        c = r.counts()
        out.append(
            f"result: {r.outcome} ({c['errors']} violated, {c['warnings']} warnings, "
            f"{c['unknown']} unknown, {c['proved']} proved"
            + (f", {c['tested']} tested" if c["tested"] else "")
            + ")"
        )
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def json_report(reports: Iterable[ModelReport], profile: str, exit_code: int) -> str:
    """The JSON report (schema version :data:`JSON_SCHEMA_VERSION`)."""
    models: list[dict[str, Any]] = []
    for r in reports:
        entry: dict[str, Any] = {"path": r.path, "outcome": r.outcome, "exit_code": r.exit_code}
        if r.error is not None:
            entry["error"] = {"type": type(r.error).__name__, "message": r.error.one_line()}
        if r.model is not None:
            entry["model"] = model_summary(r.model)
            entry["verdicts"] = [v.to_json() for v in r.verdicts]
            entry["counts"] = r.counts()
        if r.smt is not None:
            entry["smt"] = {**r.smt, "findings": [v.to_json() for v in r.findings]}
        models.append(entry)
    doc = {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "sonnx", "version": __version__},
        "profile": profile,
        "exit_code": exit_code,
        "models": models,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
