"""The wording of the reports: counts in the singular for one, a rule column that leaves every title two spaces
after its ID, a result line that says why the run is TESTED (WAIVED, PARTIAL) rather than PROVED, and one word,
WARNING, for a violated warning-severity rule in the text, JSON, SARIF and JUnit reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import onnx
import pytest
from onnx import helper

from sonnx.base.text import counted
from sonnx.base.verdict import Severity, Status, Verdict, Witness, label
from sonnx.checking.report import ModelReport, text_report
from sonnx.checking.verdict_text import rule_column, titles
from tests.common.builders import fvi, make_model
from tests.common.cli import EXAMPLES, check

CNN = str(EXAMPLES / "cnn_block.onnx")
SEED = str(EXAMPLES / "seed001_example.onnx")
VERDICT_LINE = re.compile(r"^  (PROVED|VIOLATED|WARNING|UNKNOWN|TESTED|WAIVED|NOT CHECKED) +(\S+)( +)(\S.*)$")


def test_counted_uses_the_singular_for_one_only() -> None:
    assert [counted(n, "operation") for n in (0, 1, 2)] == ["0 operations", "1 operation", "2 operations"]
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"


def test_one_operation_and_one_warning_are_singular(tmp_path: Path) -> None:
    path = tmp_path / "one.onnx"
    onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [fvi("x")], [fvi("y")]), path)
    _, out, _ = check("-q", "--engine", "direct", str(path))
    assert "; 1 operation, 0 nested graphs; profile sonnx" in out, out
    code, out, _ = check("-q", SEED)
    assert code == 1 and re.search(r"^result: VIOLATED \(2 violated, 1 warning, ", out, re.M), out
    assert "1 warnings" not in out and "1 operations" not in out


def test_the_rule_column_leaves_two_spaces_after_the_longest_rule_id() -> None:
    longest = max(titles(), key=len)
    verdicts = (Verdict.proved("FORMAT-ONNX"), Verdict.tested(longest, "1 input set (seed 0)"))
    report = ModelReport("m.onnx", verdicts=verdicts, summary={
        "ir_version": 8, "opset_imports": {"ai.onnx": 17}, "operations": 2, "nested_graphs": 0, "functions": [],
        "weights_loaded": True})
    lines = [m for m in map(VERDICT_LINE.match, text_report([report], "sonnx").splitlines()) if m]
    assert [m.group(2) for m in lines] == ["FORMAT-ONNX", longest]
    assert len(lines[1].group(3)) >= 2 and lines[1].group(4) == titles()[longest]
    assert len({m.start(4) for m in lines}) == 1  # every title in one column
    assert rule_column() >= len(longest) + 1


def test_every_verdict_line_of_a_real_report_leaves_two_spaces() -> None:
    _, out, _ = check("-q", "--profile", "sonnx-strict", "--cross-check", "reference", CNN)
    lines = [m for m in map(VERDICT_LINE.match, out.splitlines()) if m]
    assert len(lines) > 20 and all(len(m.group(3)) >= 2 for m in lines), out
    assert "EXEC-CROSSCHECK-REFERENCE" in {m.group(2) for m in lines}


def test_a_cross_check_says_why_the_run_is_tested_not_proved() -> None:
    code, out, _ = check("-q", "--cross-check", "reference", CNN)
    assert code == 0 and re.search(r"^result: TESTED ", out, re.M), out
    why = next(line for line in out.splitlines() if line.startswith("  why: "))
    assert "EXEC-CROSSCHECK-REFERENCE is TESTED on 1 input set (seed 0)" in why
    assert why.endswith("so the model as a whole is TESTED, not PROVED")
    _, doc, _ = check("-q", "--json", "--cross-check", "reference", CNN)
    [entry] = json.loads(doc)["models"]
    assert entry["outcome"] == "TESTED" and entry["outcome_reason"] == why.removeprefix("  why: ")
    _, out, _ = check("-q", CNN)
    assert re.search(r"^result: PROVED ", out, re.M) and "why:" not in out


def test_a_selection_says_why_the_run_is_partial() -> None:
    code, out, _ = check("-q", "--engine", "direct", "--select", "GRAPH-C1", CNN)
    assert code == 2 and re.search(r"^result: PARTIAL ", out, re.M), out
    assert re.search(r"^  why: every rule checked holds, but the selection left \d+ rules out: conformance", out,
                     re.M), out


@pytest.mark.parametrize(("status", "severity", "word"), [
    (Status.VIOLATED, Severity.WARNING, "WARNING"), (Status.VIOLATED, Severity.ERROR, "VIOLATED"),
    (Status.PROVED, Severity.WARNING, "PROVED"), (Status.UNKNOWN, Severity.WARNING, "UNKNOWN"),
])
def test_label_is_warning_only_for_a_violated_warning(status: Status, severity: Severity, word: str) -> None:
    assert label(status.value, severity.value) == word


@pytest.mark.rule("GRAPH-R1-OUTPUTS")
def test_a_warning_reads_warning_in_text_json_and_sarif(tmp_path: Path) -> None:
    _, out, _ = check("-q", SEED)
    assert re.search(r"^  WARNING +GRAPH-R1-OUTPUTS ", out, re.M), out
    _, doc, _ = check("-q", "--json", SEED)
    v = next(v for v in json.loads(doc)["models"][0]["verdicts"] if v["rule"] == "GRAPH-R1-OUTPUTS")
    assert (v["status"], v["severity"], v["label"]) == ("VIOLATED", "warning", "WARNING")
    sarif = tmp_path / "r.sarif"
    check("-q", "--sarif", str(sarif), SEED)
    result = next(r for r in json.loads(sarif.read_text())["runs"][0]["results"] if r["ruleId"] == "GRAPH-R1-OUTPUTS")
    assert result["level"] == "warning" and result["properties"]["label"] == "WARNING"


def test_a_waived_verdict_says_waived_in_its_label() -> None:
    original = Verdict.violated("GRAPH-C2", Witness("w"), Severity.WARNING)
    waived = Verdict.waived(original, [{"id": "W-1"}])
    assert waived.to_json()["label"] == "WAIVED" and waived.to_json()["original"]["label"] == "WARNING"
