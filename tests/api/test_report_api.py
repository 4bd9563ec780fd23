"""A report in Python: a one-line repr, ``str`` the text ``sonnx-check`` prints, ``to_json()`` its ``--json``
document, an escaped HTML table for notebooks, and ``counts``, ``outcome``, ``exit_code`` as three properties."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import sonnx
from sonnx.base.verdict import Outcome, Severity, Verdict, Witness
from sonnx.checking.report import ModelReport, json_counts
from tests.common.cli import EXAMPLES, check

SEED = str(EXAMPLES / "seed001_example.onnx")
CNN = str(EXAMPLES / "cnn_block.onnx")
CASES = [(SEED, "sonnx"), (CNN, "sonnx"), (CNN, "sonnx-strict"), (str(EXAMPLES / "no_such_model.onnx"), "sonnx")]
"""Models and profiles: violated, proved with a warning, violated under the strict profile, unreadable."""


def _report(path: str, profile: str) -> ModelReport:
    return sonnx.check(path, profile=profile, engine="direct")


@pytest.mark.parametrize(("path", "profile"), CASES)
def test_repr_is_one_short_line(path: str, profile: str) -> None:
    report = _report(path, profile)
    shown = repr(report)
    assert "\n" not in shown and len(shown) < 250, shown
    assert shown.startswith(f"<ModelReport {path}: {report.outcome.value} (exit {report.exit_code}; ")
    if report.error is None:
        assert ", ".join(f"{k}={n}" for k, n in report.counts.items()) in shown
    else:
        assert "no such file" in shown


@pytest.mark.parametrize(("path", "profile"), CASES[:3])
def test_str_and_to_text_are_what_sonnx_check_prints(path: str, profile: str) -> None:
    report = _report(path, profile)
    code, out, _ = check("--profile", profile, "--engine", "direct", path)
    assert code == report.exit_code
    assert str(report) == report.to_text() == out
    assert f"profile {profile}" in out


@pytest.mark.parametrize(("path", "profile"), CASES)
def test_to_json_is_the_document_of_sonnx_check_json(path: str, profile: str) -> None:
    report = _report(path, profile)
    code, out, _ = check("--json", "-q", "--profile", profile, "--engine", "direct", path)
    document = report.to_json()
    assert code == report.exit_code == document["exit_code"]
    assert json.dumps(document, indent=2, ensure_ascii=False) + "\n" == out  # byte for byte, key order included
    assert document["profile"] == profile


def test_counts_is_a_property_named_as_the_text_report_names_them() -> None:
    report = _report(SEED, "sonnx")
    counts = report.counts
    assert not callable(counts)
    assert list(counts) == ["violated", "warnings", "unknown", "proved", "tested"]
    assert counts["violated"] == 2 and counts["warnings"] == 1
    result = report.to_text().splitlines()[-1]
    assert result.startswith(f"result: VIOLATED ({counts['violated']} violated, {counts['warnings']} warning")
    assert f"{counts['proved']} proved" in result
    # the JSON report and the evidence manifest keep schema 1's name for the same number
    assert json_counts(report) == {"errors": 2, **{k: n for k, n in counts.items() if k != "violated"}}
    assert report.to_json()["models"][0]["counts"] == json_counts(report)


@pytest.mark.parametrize(("path", "profile", "outcome"), [
    (SEED, "sonnx", Outcome.VIOLATED), (CNN, "sonnx", Outcome.PROVED), (CASES[3][0], "sonnx", Outcome.ERROR),
])
def test_outcome_is_an_outcome_that_reads_as_its_word(path: str, profile: str, outcome: Outcome) -> None:
    report = _report(path, profile)
    assert report.outcome is outcome and isinstance(report.outcome, sonnx.Outcome)
    assert report.outcome == outcome.value and f"{report.outcome}" == outcome.value  # old comparisons still hold
    assert json.dumps({"o": report.outcome}) == json.dumps({"o": outcome.value})
    assert type(report.to_json()["models"][0]["outcome"]) is str


class _Cells(HTMLParser):
    """The rows of every table of an HTML fragment, as lists of cell texts, and every tag seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cells(fragment: str) -> _Cells:
    parser = _Cells()
    parser.feed(fragment)
    parser.close()
    return parser


def test_html_is_the_table_of_verdicts_with_their_witnesses() -> None:
    report = _report(SEED, "sonnx")
    page = _cells(report._repr_html_())
    header, *rows = page.rows
    assert header == ["rule", "status", "severity", "title", "witness or reason", "engine"]
    assert [r[0] for r in rows] == [v.rule_id for v in report.all_verdicts()]
    assert [r[1] for r in rows] == [v.status.value for v in report.all_verdicts()]
    r1 = next(r for r in rows if r[0] == "GRAPH-R1")
    witness = report.verdict("GRAPH-R1").witness  # type: ignore[union-attr]
    assert r1[2:4] == ["error", "No dead operation"] and witness is not None and witness.summary in r1[4]
    assert "Sub:sub" in r1[4]
    assert not {"script", "link", "iframe", "img"} & set(page.tags)
    assert "VIOLATED" in report._repr_html_().split("<table")[0]  # the headline names the outcome


def test_html_escapes_what_the_model_names_and_cuts_long_lists() -> None:
    hostile = "<script>alert(1)</script>&\x1b[31m"
    witness = Witness(f"dead {hostile}", {"dead": [f"op{i}{hostile}" for i in range(20)]})
    report = ModelReport(
        f"{hostile}.onnx",
        verdicts=(
            Verdict.violated("GRAPH-R1", witness),
            Verdict.unknown("GRAPH-C2", f"timeout {hostile}", Severity.WARNING),
        ),
        notes=(f"note {hostile}",),
    )
    fragment = report._repr_html_()
    assert "<script" not in fragment and "\x1b" not in fragment
    assert fragment.count("&lt;script&gt;") == 1 + 1 + 8 + 1 + 1  # path, summary, 8 items shown, reason, note
    page = _cells(fragment)
    assert len(page.rows) == 3 and "(12 more)" in page.rows[1][4] and "op7" in page.rows[1][4]
    assert "op8" not in page.rows[1][4]
    assert page.rows[2][4] == "reason: timeout " + hostile.replace("\x1b", "\\x1b")


def test_html_of_an_unreadable_model_names_its_error() -> None:
    report = _report(CASES[3][0], "sonnx")
    fragment = report._repr_html_()
    assert "<table" not in fragment and "ERROR" in fragment and "no such file" in fragment


def test_verdict_batch_and_crosscheck_reprs_are_one_line(tmp_path: Path) -> None:
    data = {"dead": [{"operation": f"Relu:n{i}", "index": i} for i in range(2000)]}
    verdict = Verdict.violated("GRAPH-R1", Witness("2000 dead operations", data))
    assert repr(verdict) == "<Verdict GRAPH-R1 VIOLATED (error, direct): 2000 dead operations>"
    batch = sonnx.batch([SEED, CNN], workers=1, profile="sonnx-strict", engine="direct")
    shown = repr(batch)
    assert "\n" not in shown and len(shown) < 200
    assert shown.startswith("<Batch models=2 executor=serial workers=1: exit 1;")
    assert all(r.profile == "sonnx-strict" for r in batch.reports)
    cross = sonnx.crosscheck(CNN, oracles="reference")
    assert repr(cross) == f"<CrossCheckReport {CNN}: AGREE (exit 0; reference AGREE)>"


def test_a_batch_error_report_names_its_profile(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    batch = sonnx.batch([broken, CNN], workers=1, profile="sonnx-strict", dims="NOPE=1..4")
    reports = {r.path: r for r in batch.reports}
    unreadable, refused = reports[str(broken)], reports[CNN]
    # unreadable: the pipeline's error report; refused: an error raised out of the check, reported by the batch
    for report in (unreadable, refused):
        assert report.outcome is Outcome.ERROR and report.to_json()["profile"] == "sonnx-strict"
        assert re.fullmatch(rf"<ModelReport {re.escape(report.path)}: ERROR \(exit 2; .+\)>", repr(report))
    assert refused.error is not None and "NOPE" in refused.error.one_line()
