"""SARIF 2.1.0 output: valid against the official schema, and saying what the check established.

The schema is the OASIS file committed in tests/data (its source is in
tests/data/README.md). Beyond validity, each test reads the log back and
checks the mapping the module text of :mod:`sonnx.checking.formats.sarif` promises:
one result per violated or UNKNOWN verdict, the rule and its level, the
witness as message, the witness's operations as logical related locations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from docutils.nodes import make_id

from sonnx.base.errors import InputError
from sonnx.base.verdict import Severity, Status, Verdict, Witness
from sonnx.checking.formats.sarif import (
    SPEC_PAGES,
    UNKNOWN_PREFIX,
    html_anchor,
    named_operations,
    sarif_log,
    sarif_report,
    write_sarif,
)
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.checking.report import ModelReport
from sonnx.cli import check_main
from sonnx.rules import RULES, rules_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
DOCS = "https://sonnx.example.org/docs"


def validate(log: dict[str, Any]) -> None:
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    cls(SCHEMA, format_checker=cls.FORMAT_CHECKER).validate(log)


def the_run(log: dict[str, Any]) -> dict[str, Any]:
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    return log["runs"][0]


def test_the_committed_schema_is_the_official_one() -> None:
    assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert SCHEMA["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")


def test_the_schema_check_rejects_what_is_not_sarif() -> None:
    """The validation itself can fail: a log without its version, or with an unknown level, is refused."""
    report = check_file(str(EXAMPLES / "seed001_example.onnx"), CheckOptions(engine="direct"))
    log = sarif_log([report], "sonnx", report.exit_code)
    validate(log)
    broken = json.loads(json.dumps(log))
    del broken["version"]
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)


@pytest.mark.parametrize("profile", ["sonnx", "sonnx-strict"])
def test_every_example_gives_a_valid_log_with_one_result_per_finding(profile: str) -> None:
    options = CheckOptions(profile=profile, engine="direct")
    reports = [check_file(str(p), options) for p in sorted(EXAMPLES.glob("*.onnx"))]
    exit_code = max(r.exit_code for r in reports)
    log = sarif_log(reports, profile, exit_code, DOCS)
    validate(log)
    run = the_run(log)
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][: len(rules_for(profile))] == [r.id for r in rules_for(profile)]
    expected = [
        (k, v.rule_id)
        for k, r in enumerate(reports)
        for v in r.all_verdicts()
        if v.status in (Status.VIOLATED, Status.UNKNOWN)
    ]
    got = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["index"], r["ruleId"]) for r in run["results"]]
    assert got == expected
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        artifact = run["artifacts"][res["locations"][0]["physicalLocation"]["artifactLocation"]["index"]]
        assert artifact["location"]["uri"] == res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert run["invocations"][0]["exitCode"] == exit_code
    assert run["invocations"][0]["executionSuccessful"] is True


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE")
def test_a_violating_example_shows_its_witness_through_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "seed001.sarif"
    code = check_main(["-q", "--sarif", str(out), "--docs-url", DOCS, str(EXAMPLES / "seed001_example.onnx")])
    assert code == 1
    log = json.loads(out.read_text(encoding="utf-8"))
    validate(log)
    run = the_run(log)
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE"}
    r1 = by_rule["GRAPH-R1"]
    assert r1["level"] == "error" and r1["kind"] == "fail"
    assert r1["message"]["text"] == "1 dead operation(s), none of whose outputs is used: Sub:sub (#3 in Test)"
    assert r1["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("examples/seed001_example.onnx")
    [related] = r1["relatedLocations"]
    assert related["logicalLocations"] == [
        {"name": "Sub:sub", "fullyQualifiedName": "Test/Sub:sub#3", "kind": "function"}
    ]
    assert r1["properties"]["witness"]["dead"][0]["outputs"] == ["op4_out"]
    assert by_rule["GRAPH-R1-OUTPUTS"]["level"] == "warning"
    assert run["invocations"][0]["exitCode"] == 1
    driver = run["tool"]["driver"]
    r1_rule = next(r for r in driver["rules"] if r["id"] == "GRAPH-R1")
    assert r1_rule["helpUri"] == f"{DOCS}/spec.html#graph-r1"
    assert r1_rule["fullDescription"]["text"] == next(r.statement for r in RULES if r.id == "GRAPH-R1")


def test_stdout_and_the_file_hold_the_same_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a.sarif"
    model = str(EXAMPLES / "r1_dead_chain.onnx")
    assert check_main(["-q", "--engine", "direct", "--format", "sarif", "--sarif", str(out), model]) == 1
    assert capsys.readouterr().out == out.read_text(encoding="utf-8")


def test_unknown_is_a_warning_result_with_its_reason_never_a_pass() -> None:
    report = check_file(str(EXAMPLES / "functions_recursion.onnx"), CheckOptions(engine="direct"))
    unknown = [v for v in report.verdicts if v.status is Status.UNKNOWN]
    assert unknown
    run = the_run(sarif_log([report], "sonnx", report.exit_code))
    for v in unknown:
        [res] = [r for r in run["results"] if r["ruleId"] == v.rule_id]
        assert res["level"] == "warning" and res["kind"] == "fail"
        assert res["message"]["text"] == UNKNOWN_PREFIX + (v.reason or "")
        assert res["properties"]["status"] == "UNKNOWN"


@pytest.mark.rule("GRAPH-ARITY")
def test_proved_and_tested_verdicts_give_no_result() -> None:
    # every rule of the sonnx profile holds on this example (cnn_block has a GRAPH-ARITY warning)
    checked = check_file(str(EXAMPLES / "strict_default_attribute.onnx"), CheckOptions(orders=2))
    assert checked.exit_code == 0
    tested = Verdict.tested("EXEC-CROSSCHECK-REFERENCE", "1 input set (seed 0)")
    report = ModelReport(checked.path, verdicts=(*checked.verdicts, tested), summary=checked.summary)
    log = sarif_log([report], "sonnx", 0)
    validate(log)
    run = the_run(log)
    assert run["results"] == []
    assert {"EXEC-ORDERS", "EXEC-CROSSCHECK-REFERENCE"} <= {r["id"] for r in run["tool"]["driver"]["rules"]}


def test_a_model_that_cannot_be_read_is_a_failed_invocation(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.onnx")
    report = check_file(missing)
    log = sarif_log([report], "sonnx", report.exit_code)
    validate(log)
    run = the_run(log)
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "no such file" in note["message"]["text"]
    assert run["results"] == []


def test_rule_links_point_at_the_spec_anchors_sphinx_makes() -> None:
    for source, page in SPEC_PAGES.items():
        including = (ROOT / "docs" / page.replace(".html", ".rst")).read_text(encoding="utf-8")
        assert f".. include:: ../{source}" in including
    for rule in RULES:
        assert rule.spec in SPEC_PAGES
        text = (ROOT / rule.spec).read_text(encoding="utf-8")
        assert re.search(rf"^\.\. _{re.escape(rule.id)}:$", text, re.M), rule.id
        assert html_anchor(rule.id) == make_id(rule.id)


def test_without_a_docs_url_no_link_is_invented() -> None:
    report = check_file(str(EXAMPLES / "cnn_block.onnx"), CheckOptions(engine="direct"))
    run = the_run(sarif_log([report], "sonnx", 0))
    assert all("helpUri" not in r for r in run["tool"]["driver"]["rules"])
    assert "informationUri" not in run["tool"]["driver"]


@pytest.mark.parametrize("url", ["docs", "/srv/docs", "ftp://host/docs", "https://", "https://h/d?x=1"])
def test_a_bad_docs_url_is_a_one_line_usage_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = check_main(["-q", "--format", "sarif", "--docs-url", url, str(EXAMPLES / "cnn_block.onnx")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--docs-url" in err


def test_docs_url_without_sarif_output_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_main(["-q", "--docs-url", DOCS, str(EXAMPLES / "cnn_block.onnx")]) == 2
    assert "applies to SARIF output (--format sarif or --sarif FILE) and to --evidence" in capsys.readouterr().err


def test_the_log_is_deterministic() -> None:
    report = check_file(str(EXAMPLES / "acyclic_cycle.onnx"), CheckOptions(engine="direct"))
    assert sarif_report([report], "sonnx", 1) == sarif_report([report], "sonnx", 1)


@pytest.mark.rule("GRAPH-R1")
def test_names_from_the_model_stay_valid_json_and_utf8(tmp_path: Path) -> None:
    """A witness with control characters and a path with an undecodable byte still make a valid UTF-8 log."""
    dead = [{"scope": "g\x00", "index": 1, "operation": "Add:\u202ex"}]
    witness = Witness("2 dead: \x1b[2J\nresult: PROVED", {"dead": dead})
    verdict = Verdict.violated("GRAPH-R1", witness)
    report = ModelReport("bad\udcff name.onnx", verdicts=(verdict,), summary={"operations": 1})
    out = tmp_path / "x.sarif"
    write_sarif(str(out), [report], "sonnx", 1)
    log = json.loads(out.read_bytes().decode("utf-8"))
    validate(log)
    res = the_run(log)["results"][0]
    assert res["message"]["text"] == witness.summary
    assert res["relatedLocations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "g\x00/Add:\u202ex#1"


def test_named_operations_reads_scopes_from_enclosing_entries_and_counts_each_once() -> None:
    data = {
        "chain_scope": "main",
        "chain": [
            {"tensor": "y", "producer": {"index": 0, "operation": "Add:add"}},
            {"tensor": "z", "producer": {"index": 0, "operation": "Add:add"}},
        ],
        "calls": [{"scope": "f/If:b.then_branch", "index": 2, "operation": "Twice:t"}],
        "operators": ["ai.onnx::Add"],
        "flag": {"operation": True},
    }
    assert named_operations(data) == [
        {"operation": "Add:add", "index": 0, "scope": "main"},
        {"operation": "Twice:t", "index": 2, "scope": "f/If:b.then_branch"},
    ]


@pytest.mark.rule("GRAPH-C1", "GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R2")
def test_each_results_level_follows_status_and_severity() -> None:
    verdicts = (
        Verdict.violated("GRAPH-R1", Witness("e", {})),
        Verdict.violated("GRAPH-R1-OUTPUTS", Witness("w", {}), Severity.WARNING),
        Verdict.unknown("GRAPH-R2", "why"),
        Verdict.proved("GRAPH-C1"),
    )
    report = ModelReport("m.onnx", verdicts=verdicts, summary={"operations": 0})
    run = the_run(sarif_log([report], "sonnx", 1))
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        ("GRAPH-R1", "error"),
        ("GRAPH-R1-OUTPUTS", "warning"),
        ("GRAPH-R2", "warning"),
    ]
    assert "relatedLocations" not in run["results"][0]


def test_a_report_file_may_not_replace_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes((EXAMPLES / "cnn_block.onnx").read_bytes())
    assert check_main(["-q", "--sarif", str(model), str(model)]) == 2
    assert "would be overwritten" in capsys.readouterr().err
    assert model.read_bytes() == (EXAMPLES / "cnn_block.onnx").read_bytes()


def test_input_error_type_is_kept() -> None:
    report = check_file("/nonexistent/x.onnx")
    assert isinstance(report.error, InputError)
