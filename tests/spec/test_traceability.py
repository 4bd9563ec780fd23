"""Traceability: every registry rule has a spec entry and a test; every spec rule has a check.

Conventions (see ``tools.traceability``): a spec entry is an anchor
``.. _RULE-ID:`` in ``spec/*.rst``; a test of a rule is a file
``tests/**/test_*.py`` (outside ``tests/spec``, registry-listing files aside)
quoting the rule ID as a whole string literal; theorems come from
``proofs/registry.py`` and the ``SUPPORTS`` constant of each module.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sonnx.checking.evidence.render import packaged_traceability
from sonnx.rules import RULES
from tools.traceability import NO_SMT, NOT_STRUCTURAL, PACKAGED, build, matrix, packaged, problems

ROOT = Path(__file__).resolve().parents[2]


def test_the_repository_has_no_traceability_gap() -> None:
    assert problems(ROOT) == []


def test_matrix_lists_every_rule_with_its_check_tests_and_theorems() -> None:
    rows = build(ROOT)
    assert [r.id for r in rows] == [r.id for r in RULES]
    for row, rule in zip(rows, RULES, strict=True):
        assert row.check_module == rule.module
        assert (ROOT / row.check_file).is_file()
        assert row.spec is not None and (ROOT / row.spec.file).is_file()
        for t in row.tests:  # a test named by pytest's node ID, whose file carries the rule's marker
            path, _, name = t.partition("::")
            text = (ROOT / path).read_text()
            assert f"def {name.rsplit('::', 1)[-1]}(" in text and f'"{rule.id}"' in text
        assert row.smt_module is not None or row.smt_note in (NO_SMT, NOT_STRUCTURAL)
    by_id = {r.id: r for r in rows}
    # GRAPH-ARITY and GRAPH-FUNCTION-SHADOWING have encodings; the rule about shapes says it will have none
    assert by_id["GRAPH-ARITY"].smt_module == "sonnx.smt.encodings.graph_arity"
    assert by_id["GRAPH-FUNCTION-SHADOWING"].smt_module == "sonnx.smt.encodings.graph_function_shadowing"
    assert by_id["STRICT-BROADCAST"].smt_note == NOT_STRUCTURAL
    # The theorems per rule, as the catalogue shows them (printed for the record with -s).
    for row in rows:
        print(row.id, "->", ", ".join(t.id for t in row.theorems) or "(no theorem)")
    assert any(row.theorems for row in rows)


def test_the_packaged_matrix_is_current() -> None:
    # Evidence bundles copy the packaged file (an installed sonnx has no source tree to scan).
    assert (ROOT / PACKAGED).read_text(encoding="utf-8") == packaged(ROOT), f"{PACKAGED} is stale: make traceability"
    shipped = packaged_traceability()
    assert shipped["spec_version"] == json.loads(packaged(ROOT))["spec_version"]
    assert [r["id"] for r in shipped["matrix"]["rules"]] == [r.id for r in RULES]


def test_matrix_is_json_ready() -> None:
    data = matrix(ROOT)
    assert json.loads(json.dumps(data)) == data
    assert data["schema"].startswith("sonnx-traceability/")


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    """A copy of the traced sources (spec, tests, proofs, smt) that a test may break."""
    for d in ("spec", "tests", "proofs"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    shutil.copytree(ROOT / "src" / "sonnx" / "smt", tmp_path / "src" / "sonnx" / "smt")
    (tmp_path / "src" / "sonnx" / "data").mkdir()
    shutil.copy(ROOT / "src" / "sonnx" / "data" / "wg_traceability.json", tmp_path / "src" / "sonnx" / "data")
    return tmp_path


def test_a_rule_without_spec_entry_is_reported(fake_root: Path) -> None:
    rid = RULES[0].id
    for page in (fake_root / "spec").glob("*.rst"):
        page.write_text(page.read_text().replace(f".. _{rid}:\n", ""))
    assert any(p.startswith(f"{rid}: in the registry but has no spec entry") for p in problems(fake_root))


def test_a_spec_rule_without_check_is_reported(fake_root: Path) -> None:
    page = next((fake_root / "spec").glob("*.rst"))
    page.write_text(page.read_text() + "\n.. _GRAPH-NOT-IMPLEMENTED:\n\nGRAPH-NOT-IMPLEMENTED\n   text\n")
    assert "GRAPH-NOT-IMPLEMENTED: spec rule with no check in the registry" in problems(fake_root)


def test_a_rule_without_test_is_reported(fake_root: Path) -> None:
    rid = RULES[-1].id
    for f in (fake_root / "tests").rglob("test_*.py"):
        text = f.read_text()
        f.write_text(text.replace(f'"{rid}"', '"X"').replace(f"'{rid}'", "'X'"))
    assert f"{rid}: no test carries @pytest.mark.rule({rid!r})" in problems(fake_root)


def test_a_theorem_supporting_an_unknown_rule_is_reported(fake_root: Path) -> None:
    mod = fake_root / "proofs" / "acyclicity.py"
    mod.write_text(mod.read_text().replace('SUPPORTS = ("GRAPH-ACYCLIC",)', 'SUPPORTS = ("GRAPH-NOPE",)'))
    assert "theorem acyclicity: supports GRAPH-NOPE, which is not a registry rule" in problems(fake_root)


def test_missing_smt_encoding_is_an_explicit_entry(fake_root: Path) -> None:
    shutil.rmtree(fake_root / "src" / "sonnx" / "smt")
    rows = build(fake_root)
    assert all(r.smt_module is None and r.smt_note == NO_SMT for r in rows)
