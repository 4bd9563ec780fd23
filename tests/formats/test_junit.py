"""JUnit XML output: one testcase per rule per model, and never a pass for what was not established."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sonnx.base.files import WriteError
from sonnx.base.verdict import Status, Verdict, Witness
from sonnx.checking.formats.junit import junit_report, write_junit
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.checking.report import ModelReport
from sonnx.cli import check_main
from sonnx.rules import rules_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def cases(root: ET.Element) -> dict[tuple[str, str], ET.Element]:
    out = {}
    for case in root.iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        assert key not in out, f"two testcases for {key}"
        out[key] = case
    return out


def kinds(case: ET.Element) -> list[str]:
    return [child.tag for child in case]


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-ACYCLIC", "GRAPH-C3", "GRAPH-DETERMINISM")
def test_failures_errors_and_passes_follow_the_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    model = str(EXAMPLES / "acyclic_cycle.onnx")
    assert check_main(["-q", "--junit", str(out), model]) == 1
    root = ET.parse(out).getroot()
    report = check_file(model)
    got = cases(root)
    assert len(got) == len(report.all_verdicts()) == len(rules_for("sonnx"))
    for v in report.all_verdicts():
        case = got[(model, v.rule_id)]
        if v.status is Status.VIOLATED:
            [failure] = case.findall("failure")
            assert failure.get("type") == "VIOLATED"
            assert failure.get("message") == v.witness.summary  # type: ignore[union-attr]
            assert "witness: " + v.witness.summary in (failure.text or "")  # type: ignore[union-attr]
        elif v.status is Status.UNKNOWN:
            [error] = case.findall("error")
            assert error.get("type") == "UNKNOWN" and error.get("message") == v.reason
            assert case.find("skipped") is None
        else:
            assert kinds(case) == []
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == model
    # FORMAT-ONNX (nodes not in topological order), GRAPH-ACYCLIC and GRAPH-C3 fail; GRAPH-DETERMINISM is unknown
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == (str(len(got)), "3", "1")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props == {"profile": "sonnx", "outcome": "VIOLATED", "exit_code": "1"}


@pytest.mark.rule("GRAPH-R1-OUTPUTS")
def test_a_warning_passes_with_its_witness_shown() -> None:
    model = str(EXAMPLES / "r1_unused_output.onnx")
    report = check_file(model, CheckOptions(engine="direct"))
    root = ET.fromstring(junit_report([report], "sonnx"))
    case = cases(root)[(model, "GRAPH-R1-OUTPUTS")]
    assert kinds(case) == ["system-out"]
    text = case.findtext("system-out") or ""
    assert text.startswith("WARNING") and "Dropout:dropout" in text
    assert root.get("failures") == "0" and root.get("errors") == "0"


def test_a_tested_verdict_passes_saying_what_was_tried() -> None:
    verdict = Verdict.tested("EXEC-ORDERS", "3 of more than 1,000 orders")
    root = ET.fromstring(junit_report([ModelReport("m.onnx", verdicts=(verdict,), summary={})], "sonnx"))
    case = cases(root)[("m.onnx", "EXEC-ORDERS")]
    assert kinds(case) == ["system-out"] and "3 of more than 1,000 orders" in (case.findtext("system-out") or "")


def test_an_unreadable_model_errs_on_every_rule(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    report = check_file(str(bad))
    for profile in ("sonnx", "sonnx-strict"):
        root = ET.fromstring(junit_report([report], profile))
        got = cases(root)
        assert [k[1] for k in got] == [r.id for r in rules_for(profile)]
        for case in got.values():
            [error] = case.findall("error")
            assert error.get("type") == "ERROR" and "could not be checked" in (error.get("message") or "")
        assert root.get("errors") == str(len(got))


def test_several_models_are_several_suites_with_times() -> None:
    paths = [str(EXAMPLES / "cnn_block.onnx"), str(EXAMPLES / "c2_unused_input.onnx")]
    reports = [check_file(p, CheckOptions(engine="direct")) for p in paths]
    root = ET.fromstring(junit_report(reports, "sonnx", {paths[0]: 1.25, paths[1]: 0.5}))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == paths
    assert [s.get("time") for s in suites] == ["1.250", "0.500"]
    assert root.get("failures") == "1"


@pytest.mark.rule("GRAPH-R1")
def test_text_from_the_model_cannot_break_the_xml() -> None:
    witness = Witness("dead \x1b[2J\x00 op </failure><x>", {"dead": ["\x07"]})
    report = ModelReport("m\x01\udcff.onnx", verdicts=(Verdict.violated("GRAPH-R1", witness),), summary={})
    data = junit_report([report], "sonnx")
    data.decode("utf-8")
    root = ET.fromstring(data)
    [case] = root.iter("testcase")
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "dead \\x1b[2J\\x00 op </failure><x>"
    assert case.get("classname") == "m\\x01\\udcff.onnx"


def test_the_file_is_written_atomically(tmp_path: Path) -> None:
    report = check_file(str(EXAMPLES / "cnn_block.onnx"), CheckOptions(engine="direct"))
    out = tmp_path / "r.xml"
    out.write_text("old")
    write_junit(str(out), [report], "sonnx")
    assert ET.parse(out).getroot().tag == "testsuites"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.xml"]
    with pytest.raises(WriteError):
        write_junit(str(tmp_path / "no" / "such" / "dir.xml"), [report], "sonnx")


def test_an_unwritable_junit_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = check_main(["-q", "--junit", str(tmp_path / "missing" / "r.xml"), str(EXAMPLES / "cnn_block.onnx")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err
