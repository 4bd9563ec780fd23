"""The coverage table of the working group's operator specifications: every tagged statement, classified.

Inputs, all package data of ``src/sonnx/data/``:

* ``wg_operator_tags.json``: the inventory of tagged statements (``tools/wg_tags.py``);
* the rows of :data:`sonnx.rules.strict_op_table.ROWS`: a statement a row names
  is ``checked`` by STRICT-OP-RESTRICTIONS (spec/operators.rst, section 2);
* ``wg_operator_coverage.json``: the hand-written classification of every
  other statement, entries tried in order, the first matching one wins.

:func:`classify` joins them; :func:`problems` lists every defect of the data
(a row or an entry naming a statement the inventory lacks, an entry that
classifies nothing, a statement nothing classifies, a ``checked`` entry
without a rule and a test that exist, a class that is not one of
:data:`CLASSES`); :func:`page` renders the docs page
``docs/_generated/wg_operator_coverage.rst`` (written at docs build time by
``docs/_ext/sonnx_docs.py``). ``python -m tools.wg_operator_coverage`` prints
the counts per class and the problems, and exits 1 when there is one.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tools import rule_markers, wg_coverage

DATA = Path("src/sonnx/data")
TAGS = DATA / "wg_operator_tags.json"
CLASSIFICATION = DATA / "wg_operator_coverage.json"
CLASSES = {
    "checked": "checked",
    "partly": "checked in part",
    "implied": "holds for every model onnx's checker accepts",
    "elsewhere": "left to another section of the operator layer",
    "not-static": "not statically checkable",
    "open": "statically checkable, not checked yet",
}
RULE = "STRICT-OP-RESTRICTIONS"
ROW_TEST = "tests/rules/test_strict_op_restrictions.py::test_each_row_catches_its_violation"
"""The parametrized test that builds, for every row, a model breaking it and one satisfying it."""


def _load(root: Path, rel: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / rel).read_text(encoding="utf-8"))
    return data


def matcher(pattern: str) -> Callable[[str], bool]:
    """``pattern`` with ``*`` standing for any text (and nothing else special) as a predicate on keys."""
    rx = re.compile("^" + ".*".join(re.escape(p) for p in pattern.split("*")) + "$", re.S)
    return lambda key: rx.match(key) is not None


def rows(root: Path) -> list[Any]:
    """The table's rows, read from the checkout at ``root`` (its ``src`` first on the path)."""
    src = str(root / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    from sonnx.rules.strict_op_table import ROWS

    return list(ROWS)


def classify(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every statement of the inventory with its class, reason and references; and the problems found."""
    inventory = _load(root, TAGS)["statements"]
    entries = _load(root, CLASSIFICATION)["entries"]
    known = {s["key"] for s in inventory}
    problems: list[str] = []
    by_row: dict[str, list[str]] = {}
    for r in rows(root):
        for key in r.tags:
            if key not in known:
                problems.append(f"row {r.id} names {key!r}, which the inventory does not hold")
            by_row.setdefault(key, []).append(r.id)
    used = [0] * len(entries)
    out: list[dict[str, Any]] = []
    for s in inventory:
        rec = {"key": s["key"], "file": s["file"], "line": s["line"], "tag": s["tag"], "title": s["title"]}
        if s["key"] in by_row:
            out.append({**rec, "class": "checked", "why": f"{RULE}: row(s) {', '.join(by_row[s['key']])}",
                        "by": [{"rule": RULE}, {"test": ROW_TEST}]})
            continue
        for i, e in enumerate(entries):
            if matcher(e["match"])(s["key"]) and e.get("title", s["title"]) == s["title"]:
                used[i] += 1
                out.append({**rec, "class": e["class"], "why": e["why"], "by": e.get("by", [])})
                break
        else:
            problems.append(f"statement {s['key']!r} has no classification")
    for i, e in enumerate(entries):
        where = f"entry {i} ({e['match']!r})"
        if not used[i]:
            problems.append(f"{where} classifies no statement (a key the inventory lacks, or one a row implements)")
        if e["class"] not in CLASSES:
            problems.append(f"{where}: class {e['class']!r} is not one of {', '.join(CLASSES)}")
        if e["class"] in ("checked", "partly") and not ({"rule", "test"} <= {k for r in e.get("by", []) for k in r}):
            problems.append(f"{where}: a {e['class']} entry names no rule and no test")
    return out, problems


def problems(root: Path, rule_ids: Sequence[str]) -> list[str]:
    """Every defect of the data (see the module text), including references to rules or tests that do not exist."""
    out, found = classify(root)
    rules = set(rule_ids)
    tests, _ = rule_markers.scan(root)
    marked: dict[str, list[str]] = {}
    for test, ids in tests.items():
        for i in ids:
            marked.setdefault(i, []).append(test)
    for s in out:
        for ref in s["by"]:
            if "rule" in ref and ref["rule"] not in rules:
                found.append(f"{s['key']}: names the rule {ref['rule']!r}, which does not exist")
            if "rule" in ref and s["class"] in ("checked", "partly") and not marked.get(ref["rule"]):
                found.append(f"{s['key']}: the rule {ref['rule']!r} has no test marked with it")
            if "test" in ref and not wg_coverage.test_exists(root, ref["test"].split("[")[0]):
                found.append(f"{s['key']}: names the test {ref['test']!r}, which does not exist")
    return sorted(set(found))


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("*", "\\*").replace("`", "\\`").replace("_", "\\_")


def page(root: Path) -> str:
    """The reStructuredText page of the coverage table."""
    out, _ = classify(root)
    source = _load(root, TAGS)["source"]
    counts = Counter(s["class"] for s in out)
    lines = [
        ".. _wg-operator-coverage:", "",
        "Operator specifications: coverage of the working group's tagged statements",
        "=" * 75, "",
        f"Every tagged statement of the working group's operator specifications (``{source['repository']}``, "
        f"folder ``{source['folder']}``, commit ``{source['commit']}``, {source['date']}), as "
        "``tools/wg_tags.py`` inventories them, with how sonnx covers it. Generated by "
        "``tools/wg_operator_coverage.py`` from the inventory, the rows of STRICT-OP-RESTRICTIONS "
        "(:ref:`STRICT-OP-RESTRICTIONS`) and the hand-written classification ``wg_operator_coverage.json``.", "",
    ]
    lines += [f"* {CLASSES[c]}: {counts.get(c, 0)}" for c in CLASSES] + [f"* in all: {len(out)}", ""]
    files = _load(root, TAGS)["files"]
    untagged = [f for f in files if f not in {s["file"] for s in out}]
    if untagged:
        lines += ["Specifications with no tagged statement at that commit (nothing to classify): "
                  + ", ".join(f"``{f}``" for f in untagged) + ".", ""]
    by_file: dict[str, list[dict[str, Any]]] = {}
    for s in out:
        by_file.setdefault(s["file"], []).append(s)
    for f in sorted(by_file):
        lines += [f"``{f}``", "-" * (len(f) + 4), "", ".. list-table::", "   :header-rows: 1",
                  "   :widths: 40 8 14 38", "",
                  "   * - statement (family, section, tag)", "     - line", "     - coverage", "     - how, or why not"]
        for s in by_file[f]:
            _, fam, sec, tag = s["key"].split("|")
            refs = ", ".join(f"{k} {v}" for r in s["by"] for k, v in r.items() if k == "rule")
            how = s["why"] + (f" ({refs})" if refs and refs not in s["why"] else "")
            lines += [f"   * - {_cell(fam)}; {_cell(sec)}; {_cell(tag)}", f"     - {s['line']}",
                      f"     - {CLASSES[s['class']]}", f"     - {_cell(how)}"]
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> int:
    root = Path.cwd()
    out, _ = classify(root)
    from sonnx.rules.registry import RULES

    found = problems(root, [r.id for r in RULES])
    for c, n in sorted(Counter(s["class"] for s in out).items()):
        print(f"{c}: {n}")
    for p in found:
        print(f"problem: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
