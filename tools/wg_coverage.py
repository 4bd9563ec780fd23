"""Traceability to the SONNX working group's texts, and the coverage table (REQ-FS-010).

The data is hand-written, in the package data file
``src/sonnx/data/wg_traceability.json``:

* ``sources``: the group's texts, each with its repository, path and the
  commit it was read from;
* ``rules``: for every registry rule, the group's labels or requirement IDs it
  implements (``labels``, each with its ``source`` and, when the rule covers
  only part of it, ``part``), or ``none`` with the reason when no text of the
  group has one;
* ``clashes``: where the group's IDs and sonnx's collide or are not unique;
* ``coverage``: every labelled statement of graph.md version 23 and every
  requirement of reqs.md about graphs, serialization or tools, with
  ``covers``, ``partly`` or ``not`` and what covers it (``by``): a registry
  ``rule``, a ``theorem`` ID of ``proofs/registry.py``, a ``test`` written
  ``tests/<file>.py::<test function>``, or a ``spec`` label (``.. _label:`` in
  ``spec/*.rst``).

:func:`problems` lists every entry that names something that does not exist,
and every registry rule without an entry, so the table cannot drift from the
code; ``tools.traceability`` adds them to its own problems.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

WG_DATA = Path("src/sonnx/data/wg_traceability.json")
"""Where the data lives, relative to the repository root."""

COVERAGE = ("covers", "partly", "not")
REF_KINDS = ("rule", "theorem", "test", "spec")
SPEC_LABEL = re.compile(r"^\.\. _([A-Za-z0-9-]+):\s*$", re.M)


def load(root: Path) -> dict[str, Any]:
    """The data file of the checkout at ``root`` (an empty record when it is missing)."""
    path = root / WG_DATA
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def spec_labels(root: Path) -> set[str]:
    """Every ``.. _label:`` of ``spec/*.rst``, rule anchors included."""
    out: set[str] = set()
    for page in sorted((root / "spec").glob("*.rst")):
        out.update(SPEC_LABEL.findall(page.read_text(encoding="utf-8")))
    return out


def test_exists(root: Path, ref: str) -> bool:
    """Whether ``tests/<file>.py::<function>`` names a test function of a test file of ``root``."""
    path, sep, name = ref.partition("::")
    f = root / path
    if not sep or not name or not path.startswith("tests/") or not f.is_file():
        return False
    return re.search(rf"^def {re.escape(name)}\(", f.read_text(encoding="utf-8"), re.M) is not None


def _ref_problem(root: Path, where: str, ref: Mapping[str, Any], rules: set[str], theorems: set[str],
                 labels: set[str]) -> str | None:
    kinds = [k for k in REF_KINDS if k in ref]
    if len(kinds) != 1 or len(ref) != 1:
        return f"{where}: {ref!r} must have exactly one of {', '.join(REF_KINDS)}"
    kind, value = kinds[0], str(ref[kinds[0]])
    ok = {
        "rule": value in rules,
        "theorem": value in theorems,
        "test": test_exists(root, value),
        "spec": value in labels,
    }[kind]
    return None if ok else f"{where}: names the {kind} {value!r}, which does not exist"


def problems(root: Path, rules: Iterable[str], theorems: Iterable[str]) -> list[str]:
    """Every gap between the data and the checkout: see the module text."""
    data = load(root)
    if not data:
        return [f"{WG_DATA.as_posix()}: missing (traceability to the working group's texts)"]
    rule_ids, thm_ids, labels = list(rules), set(theorems), spec_labels(root)
    known = set(rule_ids)
    sources = set(data.get("sources", {}))
    out: list[str] = []
    entries: Mapping[str, Any] = data.get("rules", {})
    for rid in rule_ids:
        e = entries.get(rid)
        if e is None:
            out.append(f"{rid}: no entry in {WG_DATA.as_posix()} (the group's label, or none with the reason)")
        elif not e.get("labels") and not e.get("none"):
            out.append(f"{rid}: its working-group entry has neither labels nor the reason there is none")
    for rid, e in entries.items():
        if rid not in known:
            out.append(f"{WG_DATA.as_posix()}: entry for {rid}, which is not a registry rule")
        for lab in e.get("labels", []):
            if lab.get("source") not in sources:
                out.append(f"{rid}: label {lab.get('label')!r} cites the unknown source {lab.get('source')!r}")
    for k, row in enumerate(data.get("coverage", [])):
        where = f"coverage row {k} ({row.get('label')})"
        if row.get("source") not in sources:
            out.append(f"{where}: unknown source {row.get('source')!r}")
        if row.get("coverage") not in COVERAGE:
            out.append(f"{where}: coverage must be one of {', '.join(COVERAGE)}")
        if row.get("coverage") != "not" and not row.get("by"):
            out.append(f"{where}: says {row.get('coverage')} but names nothing that covers it")
        for ref in row.get("by", []):
            p = _ref_problem(root, where, ref, known, thm_ids, labels)
            if p is not None:
                out.append(p)
    return out


def rule_labels(root: Path) -> dict[str, dict[str, Any]]:
    """Rule ID -> its entry, each label completed with its source's path and commit (for the matrix)."""
    data = load(root)
    sources: Mapping[str, Any] = data.get("sources", {})
    out: dict[str, dict[str, Any]] = {}
    for rid, e in data.get("rules", {}).items():
        labels = []
        for lab in e.get("labels", []):
            src = sources.get(lab.get("source"), {})
            labels.append({**lab, "path": src.get("path", ""), "commit": src.get("commit", "")})
        out[rid] = {"labels": labels, "none": e.get("none", "")}
    return out
