"""The traceability matrix: every rule, from its spec entry to its check, tests and theorems.

Built from the sources, never maintained by hand:

* **rules**: :data:`sonnx.rules.RULES`, the table the checker runs;
* **spec entries**: an anchor ``.. _RULE-ID:`` in a page ``spec/*.rst``. Every
  such anchor whose name looks like a rule ID (upper-case words joined by
  ``-``, e.g. ``GRAPH-R1-OUTPUTS``) is a spec rule;
* **words**: the title, statement and rationale of each rule are the spec's
  (:class:`sonnx.rules.base.Rule` reads them from the package data that
  :mod:`tools.rule_texts` renders from the spec);
* **check**: the module named after the rule ID (``rule.module``), whose ``check`` decides it;
* **SMT encoding**: a module of ``src/sonnx/smt/encodings/`` that declares
  the rule ID in its top-level ``ID``: a literal ``ID = "RULE-ID"``, or the
  direct rule's constant imported as it is (``from ...rules.graph_c1 import
  ID``, read from that rule module), or failing that, whose file name is the
  rule module's file name. None when there is none yet; the matrix then says
  "no SMT encoding yet" instead of failing, or that the rule is not
  structural when its check module declares ``STRUCTURAL = False``;
* **tests**: every test that carries the marker ``@pytest.mark.rule`` with
  the rule ID (on the test, its class or its module; :mod:`tools.rule_markers`),
  named as pytest names it (``path::test``). A marker naming an ID that is not
  a rule is a problem. The files that merely enumerate the registry
  (:data:`LISTING_TESTS`) are shown apart when they quote the rule ID, and do
  not count as exercising it; ``tests/spec`` is not searched;
* **theorems**: the modules listed in ``proofs/registry.py`` (``MODULES``),
  each supporting the rule IDs of its ``SUPPORTS`` constant;
* **working group**: the group's labels or requirement IDs each rule
  implements, with the commit of the text they were read from, and the
  coverage table of the group's statements (:mod:`tools.wg_coverage`, data in
  ``src/sonnx/data/wg_traceability.json``).

Spec anchors, SMT modules and theorem modules are read with :mod:`ast` and
regular expressions: nothing is imported from ``proofs/`` or ``sonnx.smt``,
so a module being written does not break the matrix, and no proof runs.
The files are found from the repository root (a source checkout), so this
is a tool of the repository, not of the installed package: ``python -m
tools.traceability`` (``make traceability``) writes the matrix and the spec
version into the package data file ``src/sonnx/data/traceability.json``,
which evidence bundles copy; a test keeps that file current.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sonnx.rules import RULES, Rule
from tools import rule_markers, wg_coverage

SCHEMA = "sonnx-traceability/1"

RULE_ANCHOR = re.compile(r"^\.\. _([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+):\s*$")
"""A spec anchor that names a rule (lower-case anchors such as ``spec-graph`` are page labels)."""

LISTING_TESTS: tuple[str, ...] = ("tests/rules/test_registry.py", "tests/smt/test_registry.py")
"""Test files that list every entry of a registry (the rules', the SMT encodings'); they do not count as tests of a
particular rule."""

NO_SMT = "no SMT encoding yet"
NOT_STRUCTURAL = "not structural (spec, section 4): no SMT encoding"
"""The note of a rule whose check module declares ``STRUCTURAL = False`` (a rule about shapes)."""


def default_root() -> Path:
    """The repository root of this source checkout (``tools/traceability.py`` is one level below)."""
    return Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class SpecEntry:
    file: str
    line: int
    anchor: str


@dataclass(frozen=True)
class TheoremRef:
    id: str
    title: str
    module: str


@dataclass
class RuleTrace:
    """One row of the matrix."""

    id: str
    title: str
    severity: str
    strict_severity: str | None
    """The severity under sonnx-strict when it differs from ``severity`` (GRAPH-ARITY), else None."""
    profile: str
    statement: str
    rationale: str | None
    """The spec's rationale (None while the spec gives none); title, statement and rationale are the spec's words."""
    section: str
    """The number of the rule's section in the spec (``4.0.4``)."""
    spec: SpecEntry | None
    check_module: str
    check_file: str
    smt_module: str | None
    smt_note: str
    tests: list[str] = field(default_factory=list)
    listing_tests: list[str] = field(default_factory=list)
    theorems: list[TheoremRef] = field(default_factory=list)
    wg: dict[str, Any] = field(default_factory=dict)


def spec_entries(root: Path) -> dict[str, SpecEntry]:
    """Every rule anchor of ``spec/*.rst``, by rule ID (the first one, if an ID is anchored twice)."""
    found: dict[str, SpecEntry] = {}
    for page in sorted((root / "spec").glob("*.rst")):
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            m = RULE_ANCHOR.match(line)
            if m and m.group(1) not in found:
                found[m.group(1)] = SpecEntry(page.relative_to(root).as_posix(), n, m.group(1))
    return found


def duplicate_anchors(root: Path) -> list[str]:
    """Rule IDs anchored more than once in ``spec/`` (each must have exactly one spec entry)."""
    seen: dict[str, int] = {}
    for page in sorted((root / "spec").glob("*.rst")):
        for line in page.read_text(encoding="utf-8").splitlines():
            m = RULE_ANCHOR.match(line)
            if m:
                seen[m.group(1)] = seen.get(m.group(1), 0) + 1
    return sorted(k for k, v in seen.items() if v > 1)


def _constants(path: Path) -> dict[str, Any]:
    """Top-level ``NAME = <literal>`` assignments of a Python file (unparsable files give nothing)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return {}
    out: dict[str, Any] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name) and value is not None:
                try:
                    out[t.id] = ast.literal_eval(value)
                except ValueError:
                    continue
    return out


def smt_modules(root: Path) -> dict[str, str]:
    """Rule ID -> module, for every module of ``src/sonnx/smt/encodings`` declaring its ``ID``."""
    found: dict[str, str] = {}
    smt = root / "src" / "sonnx" / "smt" / "encodings"
    for f in sorted(smt.glob("*.py")) if smt.is_dir() else []:
        value = _constants(f).get("ID", _imported_id(root, f))
        if isinstance(value, str):
            found.setdefault(value, f"sonnx.smt.encodings.{f.stem}")
    return found


def _imported_id(root: Path, path: Path) -> Any:
    """The value of ``ID`` when ``path`` imports it, unrenamed, from a module of ``sonnx`` (None otherwise)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None
    package = path.relative_to(root / "src").parent.parts
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if not any(a.name == "ID" and a.asname in (None, "ID") for a in node.names):
            continue
        base = package[: len(package) - node.level + 1] if node.level else ()
        target = root / "src" / Path(*base, *(node.module or "").split(".")).with_suffix(".py")
        return _constants(target).get("ID")
    return None


def _smt_for(root: Path, rule: Rule, by_id: dict[str, str]) -> tuple[str | None, str]:
    if rule.id in by_id:
        return by_id[rule.id], f"declares the rule ID {rule.id!r}"
    stem = rule.module.rsplit(".", 1)[-1]
    if (root / "src" / "sonnx" / "smt" / "encodings" / f"{stem}.py").is_file():
        return f"sonnx.smt.encodings.{stem}", "same module name as the check"
    check_file = root / "src" / Path(*rule.module.split(".")).with_suffix(".py")
    if _constants(check_file).get("STRUCTURAL") is False:
        return None, NOT_STRUCTURAL
    return None, NO_SMT


def _mentions(text: str, rule_id: str) -> bool:
    return re.search(r"""(["'])""" + re.escape(rule_id) + r"\1", text) is not None


def theorem_modules(root: Path) -> list[tuple[TheoremRef, tuple[str, ...]]]:
    """(theorem, supported rule IDs) for every module named in ``proofs/registry.py``."""
    names = _constants(root / "proofs" / "registry.py").get("MODULES", ())
    out: list[tuple[TheoremRef, tuple[str, ...]]] = []
    for name in names:
        path = root / "proofs" / f"{name}.py"
        c = _constants(path)
        ref = TheoremRef(str(c.get("ID", name)), str(c.get("TITLE", "")), f"proofs/{name}.py")
        out.append((ref, tuple(c.get("SUPPORTS", ()))))
    return out


def build(root: Path | None = None) -> list[RuleTrace]:
    """The matrix: one :class:`RuleTrace` per registry rule, in registry order."""
    base = root or default_root()
    if not (base / "spec").is_dir():
        raise FileNotFoundError(f"{base} is not a sonnx source checkout (no spec/ directory)")
    specs = spec_entries(base)
    smt = smt_modules(base)
    marked, _ = rule_markers.scan(base)
    listing = {p: (base / p).read_text(encoding="utf-8") for p in LISTING_TESTS if (base / p).is_file()}
    theorems = theorem_modules(base)
    wg = wg_coverage.rule_labels(base)
    rows: list[RuleTrace] = []
    for rule in RULES:
        mod = rule.module
        smt_mod, note = _smt_for(base, rule, smt)
        rows.append(
            RuleTrace(
                id=rule.id,
                title=rule.title,
                severity=rule.severity.value,
                strict_severity=rule.strict_severity.value if rule.strict_severity is not None else None,
                profile=rule.profile,
                statement=rule.statement,
                rationale=rule.rationale,
                section=rule.text.number,
                spec=specs.get(rule.id),
                check_module=mod,
                check_file="src/" + mod.replace(".", "/") + ".py",
                smt_module=smt_mod,
                smt_note=note,
                tests=sorted(t for t, ids in marked.items() if rule.id in ids),
                listing_tests=[p for p, text in listing.items() if _mentions(text, rule.id)],
                theorems=[ref for ref, sup in theorems if rule.id in sup],
                wg=wg.get(rule.id, {"labels": [], "none": ""}),
            )
        )
    return rows


def problems(root: Path | None = None) -> list[str]:
    """Every traceability gap; empty when spec, registry, tests and theorems agree."""
    base = root or default_root()
    rows = build(base)
    specs = spec_entries(base)
    registered = {r.id for r in rows}
    out: list[str] = []
    for r in rows:
        if r.spec is None:
            out.append(f"{r.id}: in the registry but has no spec entry (.. _{r.id}: in spec/*.rst)")
        if not r.tests:
            out.append(f"{r.id}: no test carries @pytest.mark.rule({r.id!r})")
    marked, bad = rule_markers.scan(base)
    out.extend(bad)
    for test, ids in marked.items():
        out.extend(f"{test}: marked with {rid!r}, which is not a registry rule" for rid in ids if rid not in registered)
    for rid in sorted(set(specs) - registered):
        out.append(f"{rid}: spec rule with no check in the registry")
    for rid in duplicate_anchors(base):
        out.append(f"{rid}: anchored more than once in spec/")
    for ref, sup in theorem_modules(base):
        for rid in sup:
            if rid not in registered:
                out.append(f"theorem {ref.id}: supports {rid}, which is not a registry rule")
    out.extend(wg_coverage.problems(base, [r.id for r in rows], [ref.id for ref, _ in theorem_modules(base)]))
    return out


def matrix(root: Path | None = None) -> dict[str, Any]:
    """The matrix as JSON-ready data (for the docs' export and the evidence bundle).

    ``smt_only`` lists rule IDs that an SMT module declares but the registry
    does not have (findings of the SMT engine alone); they are shown, not
    counted as problems, since the registry is the rule table of record.
    """
    base = root or default_root()
    rows = build(base)
    return {
        "schema": SCHEMA,
        "rules": [asdict(r) for r in rows],
        "theorems": [
            {**asdict(ref), "supports": list(sup)} for ref, sup in theorem_modules(base)
        ],
        "problems": problems(base),
        "smt_only": sorted(set(smt_modules(base)) - {r.id for r in rows}),
        "working_group": {k: v for k, v in wg_coverage.load(base).items() if k != "comment"},
    }


PACKAGED = Path("src/sonnx/data/traceability.json")
"""Where the packaged copy lives, relative to the repository root."""


def spec_version(root: Path | None = None) -> str | None:
    """The ``:Spec version:`` field of spec/graph.rst."""
    text = ((root or default_root()) / "spec" / "graph.rst").read_text(encoding="utf-8")
    m = re.search(r"^:Spec version:\s*(\S+)", text, re.M)
    return m.group(1) if m else None


def packaged(root: Path | None = None) -> str:
    """The text of the package data file: the spec version and the matrix, keys sorted, final newline."""
    base = root or default_root()
    doc = {"spec_version": spec_version(base), "matrix": matrix(base)}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write (or --check) the packaged traceability matrix.")
    ap.add_argument("--check", action="store_true", help="exit 1 when the packaged file is not current")
    args = ap.parse_args(argv)
    root = default_root()
    target = root / PACKAGED
    fresh = packaged(root)
    if args.check:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != fresh:
            print(f"{PACKAGED} is out of date: run make traceability", file=sys.stderr)
            return 1
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(fresh, encoding="utf-8")
    print(f"wrote {PACKAGED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
