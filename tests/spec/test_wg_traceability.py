"""Traceability to the working group's texts (REQ-FS-010): the data names only things that exist."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sonnx.rules import RULES
from tools import wg_coverage
from tools.traceability import build, matrix, problems

ROOT = Path(__file__).resolve().parents[2]


def test_every_registry_rule_has_an_entry() -> None:
    assert wg_coverage.problems(ROOT, [r.id for r in RULES], ["acyclicity", "confluence", "termination",
                                                              "order_independence", "inlining"]) == []
    for row in build(ROOT):
        assert row.wg["labels"] or row.wg["none"], row.id
        for label in row.wg["labels"]:
            assert len(label["commit"]) == 40 and label["path"].startswith("safety-related-profile/"), label


def test_the_id_clashes_are_recorded() -> None:
    clashes = {(c["group"], c["sonnx"]) for c in wg_coverage.load(ROOT)["clashes"]}
    assert ("[R2] (graph.md v23)", "GRAPH-R1-TRANSITIVE") in clashes
    assert ("REQ-OP-010", "GRAPH-R2") in clashes
    rows = {r.id: r for r in build(ROOT)}
    assert rows["GRAPH-R1-TRANSITIVE"].wg["labels"][0]["label"] == "[R2]"
    assert [lab["label"] for lab in rows["GRAPH-R2"].wg["labels"]] == ["REQ-OP-010"]


def test_the_coverage_table_lists_every_labelled_statement_of_graph_md_v23() -> None:
    labels = {r["label"] for r in wg_coverage.load(ROOT)["coverage"] if r["source"] == "graph-v23"}
    expected = {"[R1]", "[R2]", "[R3]", "[T01a]", "[T01b]", "[T02a]", "[T02b]", "[RX] tensor nodes", "[T03a]",
                "[T03b]", "[T03c]", "[RX] computation nodes", "[Rx] operator", "[T04a]", "[Rx] edges", "[T05a]",
                "[T06a]", "[T06b]", "[T06c]", "[T06e]"}
    assert expected <= labels
    rows = wg_coverage.load(ROOT)["coverage"]
    # the statements once left for later are covered now, each by its rule
    for label, topic, rule in (("[R1]", "", "GRAPH-ARITY"), ("[T03c]", "", "GRAPH-ARITY"),
                               ("[Rx] edges", "", "GRAPH-ARITY"),
                               ("Functions nodes", "shadows", "GRAPH-FUNCTION-SHADOWING"),
                               ("The if operator", "shapes are compatible", "GRAPH-IF-BRANCHES"),
                               ("AI-008", "broadcasting", "STRICT-BROADCAST")):
        (row,) = [r for r in rows if r["label"] == label and topic in r["topic"].lower()]
        assert row["coverage"] == "covers" and {"rule": rule} in row["by"], row


def test_the_packaged_matrix_carries_the_working_group_data() -> None:
    data = matrix(ROOT)
    assert data["working_group"]["sources"]["graph-v23"]["commit"].startswith("2955385")
    assert all("wg" in r for r in data["rules"])


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    for d in ("spec", "tests", "proofs"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    shutil.copytree(ROOT / "src" / "sonnx" / "smt", tmp_path / "src" / "sonnx" / "smt")
    (tmp_path / wg_coverage.WG_DATA).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / wg_coverage.WG_DATA, tmp_path / wg_coverage.WG_DATA)
    return tmp_path


def edit(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = root / wg_coverage.WG_DATA
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("ref", "kind"),
    [
        ({"rule": "GRAPH-NOPE"}, "rule"),
        ({"theorem": "no_such_theorem"}, "theorem"),
        ({"test": "tests/rules/test_graph_acyclic.py::test_that_does_not_exist"}, "test"),
        ({"test": "tests/no_such_file.py::test_x"}, "test"),
        ({"spec": "no-such-label"}, "spec"),
    ],
)
def test_a_reference_to_something_that_does_not_exist_is_reported(fake_root: Path, ref: dict[str, str],
                                                                  kind: str) -> None:
    assert problems(fake_root) == []
    edit(fake_root, lambda d: d["coverage"][0]["by"].append(ref))
    found = problems(fake_root)
    assert len(found) == 1 and f"names the {kind} {next(iter(ref.values()))!r}, which does not exist" in found[0]


def test_a_rule_without_an_entry_is_reported(fake_root: Path) -> None:
    edit(fake_root, lambda d: d["rules"].pop("FORMAT-ONNX"))
    assert any(p.startswith("FORMAT-ONNX: no entry in") for p in problems(fake_root))


def test_a_deleted_test_is_reported(fake_root: Path) -> None:
    (fake_root / "tests" / "rules" / "test_format_onnx.py").unlink()
    assert any("test_format_onnx.py::test_checker_findings_are_a_witness" in p for p in problems(fake_root))


def test_a_claim_of_coverage_needs_something_that_covers(fake_root: Path) -> None:
    edit(fake_root, lambda d: d["coverage"][0].update(coverage="covers", by=[]))
    assert any("says covers but names nothing" in p for p in problems(fake_root))
