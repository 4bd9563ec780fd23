"""``sonnx qualify``: the small suite as CI runs it, planted tool defects, cases that cannot run, the outputs."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from sonnx.base.errors import EXIT_OK
from sonnx.base.verdict import Status, Verdict
from sonnx.checking.qualify import documents, runner
from sonnx.checking.qualify.kit import qualify
from sonnx.checking.report import ModelReport
from sonnx.rules import graph_c2
from tests.common.cli import one_line, sonnx

DOCUMENTS = ("requirements", "procedures", "configuration-index", "known-problems", "accomplishment-summary")


class _Balanced(HTMLParser):
    """Fails on a closing tag that does not close the innermost open element (void elements aside)."""

    VOID = frozenset({"meta", "br", "hr", "img", "link", "input"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()


def _well_formed(text: str) -> None:
    parser = _Balanced()
    parser.feed(text)
    parser.close()
    assert parser.stack == [], parser.stack
    assert text.startswith("<!DOCTYPE html>")


def _summary(kit: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((kit / "accomplishment-summary.json").read_text(encoding="utf-8"))
    return data


def _tor(kit: Path, tor_id: str) -> dict[str, Any]:
    return next(t for t in _summary(kit)["tor_status"] if t["id"] == tor_id)


def test_the_small_suite_runs_as_ci_runs_it_and_writes_every_document(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    code, out, err = sonnx("qualify", str(kit), "--suite", "small", "-q")
    assert err == ""
    ort = runner.available("onnxruntime")
    assert code == (0 if ort else 2), out
    for name in DOCUMENTS:
        doc = json.loads((kit / f"{name}.json").read_text(encoding="utf-8"))
        assert doc["schema"] == f"sonnx-qualify-{name}/1"
        _well_formed((kit / f"{name}.html").read_text(encoding="utf-8"))
    summary = _summary(kit)
    assert summary["cases"]["FAILED"] == 0 and summary["suite"] == "small"
    assert summary["cases"]["NOT RUN"] == (0 if ort else 1)
    assert "all TORs verified" not in summary["conclusion"]  # the small suite is a subset
    procedures = json.loads((kit / "procedures.json").read_text(encoding="utf-8"))
    for case in procedures["cases"]:
        assert case["model"].startswith("models/") and (kit / case["model"]).is_file()
        if case["status"] == "PASSED":
            assert (kit / "runs" / f"{case['id']}.json").is_file()
    assert str(tmp_path) not in (kit / "procedures.json").read_text(encoding="utf-8")
    assert f"conclusion: {summary['conclusion']}" in out


def _c2_always_proved(_ctx: object) -> Verdict:
    return Verdict.proved("GRAPH-C2")


def test_a_rule_that_proves_a_violating_model_fails_its_tor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_c2, "check", _c2_always_proved)  # the table's GRAPH-C2 runs its module's check
    result = qualify(tmp_path / "kit", suite_name="small")
    assert result.exit_code == 1
    failed = {r.case.id: r for r in result.results if r.status == runner.FAILED}
    assert set(failed) == {"QP-PLANT-UNUSED-INPUT"}
    differences = failed["QP-PLANT-UNUSED-INPUT"].differences
    assert any(d.startswith("GRAPH-C2: ") for d in differences)  # the SMT engine still finds it: UNKNOWN
    assert any("direct says PROVED" in d for d in differences)
    assert _tor(result.directory, "TOR-GRAPH-C2")["status"] == "FAILED"
    assert _tor(result.directory, "TOR-GRAPH-C1")["status"] != "FAILED"
    assert result.conclusion.startswith("FAILED")


def test_a_check_that_lets_unknown_pass_fails_the_unknown_tor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = ModelReport.exit_code.fget
    assert original is not None

    def lenient(self: ModelReport) -> int:
        code: int = original(self)
        only_unknown = self.error is None and not any(v.fails for v in self.all_verdicts())
        return EXIT_OK if only_unknown and any(v.status is Status.UNKNOWN for v in self.verdicts) else code

    monkeypatch.setattr(ModelReport, "exit_code", property(lenient))
    result = qualify(tmp_path / "kit", suite_name="small")
    assert result.exit_code == 1
    assert [r.case.id for r in result.results if r.status == runner.FAILED] == ["QP-PLANT-CUSTOM-OPERATOR"]
    assert _tor(result.directory, "TOR-UNKNOWN-NEVER-PASSES")["status"] == "FAILED"


def test_a_case_that_cannot_run_makes_the_conclusion_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "available", lambda distribution: distribution != "onnxruntime")
    kit = tmp_path / "kit"
    code, out, _ = sonnx("qualify", str(kit), "-q")
    assert code == 2
    (skipped,) = [c for c in json.loads((kit / "procedures.json").read_text())["cases"] if c["status"] == "NOT RUN"]
    assert skipped["id"] == "QP-PLANT-CONFORMING-CROSSCHECK" and "sonnx[crosscheck]" in skipped["not_run_reason"]
    assert _summary(kit)["conclusion"].startswith("INCOMPLETE") and "INCOMPLETE" in out
    assert _tor(kit, "TOR-CROSSCHECK-TESTED")["status"] == "NOT RUN"


def test_every_tor_has_a_case_in_the_full_suite() -> None:
    from sonnx.checking.qualify.cases import suite
    from sonnx.checking.qualify.requirements import requirements

    results = [runner.CaseResult(case, runner.PASSED) for case in suite("full")]
    statuses = {t.requirement.id: t for t in documents.tor_statuses(results)}
    assert set(statuses) == {r.id for r in requirements()}
    uncovered = {k: t.why for k, t in statuses.items() if t.status != documents.VERIFIED}
    assert uncovered == {}
    small = [runner.CaseResult(case, runner.PASSED) for case in suite("small")]
    assert any(t.status == documents.NOT_COVERED for t in documents.tor_statuses(small))


def _stable(kit: Path) -> dict[str, Any]:
    """Every file of a kit, without the fields that vary between runs (``documents.VARYING_FIELDS``).

    The JSON documents lose those keys; the HTML pages lose the run's date, the one varying field they show.
    """
    when = _summary(kit)["generated_at"]

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in documents.VARYING_FIELDS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    out: dict[str, Any] = {}
    for path in sorted(p for p in kit.rglob("*") if p.is_file()):
        rel = path.relative_to(kit).as_posix()
        if path.suffix == ".json":
            out[rel] = strip(json.loads(path.read_text(encoding="utf-8")))
        elif path.suffix == ".html":
            out[rel] = path.read_text(encoding="utf-8").replace(when, "")
        else:
            out[rel] = path.read_bytes()
    return out


def test_two_runs_differ_only_in_time_and_durations(tmp_path: Path) -> None:
    one = qualify(tmp_path / "one", suite_name="small")
    two = qualify(tmp_path / "two", suite_name="small", jobs=2)
    assert [r.status for r in one.results] == [r.status for r in two.results]
    first, second = _stable(one.directory), _stable(two.directory)
    assert sorted(first) == sorted(second) and any(k.startswith("models/") for k in first)
    for name in first:
        assert first[name] == second[name], name


def test_an_outdir_in_use_is_refused_unless_forced(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "notes.txt").write_text("mine")
    one_line(*sonnx("qualify", str(kit), "-q"))
    assert (kit / "notes.txt").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    one_line(*sonnx("qualify", str(tmp_path / "file"), "-q"))
    one_line(*sonnx("qualify", str(tmp_path / "kit2"), "--jobs", "0", "-q"))
    one_line(*sonnx("qualify", str(tmp_path / "kit2"), "--suite", "huge", "-q"))
    assert not (tmp_path / "kit2").exists()


def test_force_replaces_and_an_interrupted_run_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "old.txt").write_text("old")

    def interrupted(*_args: object, **_kw: object) -> list[runner.CaseResult]:
        raise KeyboardInterrupt

    from sonnx.checking.qualify import kit as kit_module

    monkeypatch.setattr(kit_module, "run_cases", interrupted)
    code, _, err = sonnx("qualify", str(kit), "--force", "-q")
    assert code == 130 and "interrupted" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kit"] and (kit / "old.txt").is_file()
    monkeypatch.undo()
    code, _, _ = sonnx("qualify", str(kit), "--force", "-q")
    assert not (kit / "old.txt").exists() and (kit / "accomplishment-summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kit"]
