"""``--select`` / ``--ignore``: whole-part prefixes, the most specific selector, NOT CHECKED, never a pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

import sonnx
from sonnx.base.errors import UsageError
from sonnx.base.verdict import Status
from sonnx.checking.selection import left_out
from sonnx.rules import rules_for
from tests.common.cli import EXAMPLES, check, one_line

C2 = EXAMPLES / "c2_unused_input.onnx"
CNN = EXAMPLES / "cnn_block.onnx"
SONNX_IDS = [r.id for r in rules_for("sonnx")]


def run_json(model: Any, *extra: str) -> tuple[int, dict[str, Any]]:
    code, out, err = check("-q", "--engine", "direct", "--json", *extra, str(model))
    assert "Traceback" not in err
    return code, json.loads(out)["models"][0]


def checked(m: dict[str, Any]) -> list[str]:
    return [v["rule"] for v in m["verdicts"] if v["status"] != "NOT CHECKED"]


def test_a_prefix_selects_whole_parts_only() -> None:
    chosen = [r for r in SONNX_IDS if r not in left_out("sonnx", ("GRAPH-C1",), ())]
    assert chosen == ["GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING"]
    assert left_out("sonnx", ("GRAPH",), ()) == ["FORMAT-ONNX"]
    assert left_out("sonnx", None, ()) == []


def test_the_most_specific_selector_wins_and_ignore_wins_a_tie() -> None:
    kept = set(SONNX_IDS) - set(left_out("sonnx", ("GRAPH", "GRAPH-C1-SOURCES"), ("GRAPH-C1",)))
    assert {"GRAPH-C1-SOURCES", "GRAPH-C2"} <= kept and not {"GRAPH-C1", "GRAPH-C1-SHADOWING"} & kept
    assert "GRAPH-C2" in left_out("sonnx", ("GRAPH-C2",), ("GRAPH-C2",))


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING")
def test_rules_left_out_are_not_checked_and_the_run_is_partial_never_proved() -> None:
    code, m = run_json(CNN, "--select", "GRAPH-C1")
    assert checked(m) == ["GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING"]
    assert all(v["status"] == "PROVED" for v in m["verdicts"] if v["rule"] in checked(m))
    assert code == 2 and m["outcome"] == "PARTIAL" and m["counts"]["not_checked"] == len(SONNX_IDS) - 3
    assert m["selection"] == {"select": ["GRAPH-C1"], "ignore": [], "not_checked": [
        r for r in SONNX_IDS if r not in checked(m)]}
    code, text, _ = check("-q", "--engine", "direct", "--select", "GRAPH-C1", str(CNN))
    assert code == 2 and "result: PARTIAL" in text and "NOT CHECKED GRAPH-C2" in text
    assert "result: PROVED" not in text


@pytest.mark.rule("GRAPH-C2")
def test_ignoring_a_violated_rule_never_makes_the_model_pass() -> None:
    code, m = run_json(C2, "--ignore", "GRAPH-C2")
    assert code != 0 and m["outcome"] == "PARTIAL"
    v = next(v for v in m["verdicts"] if v["rule"] == "GRAPH-C2")
    assert v["status"] == "NOT CHECKED" and "witness" not in v
    assert v["details"]["selection"] == {"select": None, "ignore": ["GRAPH-C2"]}
    code, m = run_json(C2, "--select", "GRAPH-C2,GRAPH-C3")
    assert code == 1 and m["outcome"] == "VIOLATED"


def test_selectors_are_comma_separated_and_repeatable() -> None:
    code, m = run_json(CNN, "--select", "GRAPH-C2,GRAPH-C3", "--select", "FORMAT-ONNX", "--ignore", "GRAPH-C3")
    assert checked(m) == ["FORMAT-ONNX", "GRAPH-C2"] and code == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--select", "GRAPH-C"], "--select 'GRAPH-C': matches no rule of the profile sonnx"),
        (["--ignore", "STRICT-OPERATORS"], "--ignore 'STRICT-OPERATORS': matches no rule of the profile sonnx"),
        (["--select", "graph-c2"], "--select 'graph-c2'"),
        (["--select", "GRAPH-C2,"], "--select: an empty rule ID"),
    ],
)
def test_a_selector_that_matches_no_rule_is_a_one_line_usage_error(args: list[str], message: str) -> None:
    code, out, err = check("-q", *args, str(C2))
    one_line(code, out, err)
    assert message in err


def test_a_strict_rule_can_be_selected_under_the_strict_profile() -> None:
    code, m = run_json(CNN, "--profile", "sonnx-strict", "--select", "STRICT-OPERATORS")
    assert checked(m) == ["STRICT-OPERATORS"] and code in (1, 2)


def test_the_selected_verdicts_are_those_of_the_full_check() -> None:
    _, full = run_json(C2)
    _, part = run_json(C2, "--ignore", "GRAPH-R1")
    by_rule = {v["rule"]: v for v in full["verdicts"]}
    for v in part["verdicts"]:
        if not v["rule"].startswith("GRAPH-R1"):
            assert v == by_rule[v["rule"]]


def test_the_api_takes_select_and_ignore() -> None:
    report = sonnx.check(C2, engine="direct", select="GRAPH-C2", ignore=["GRAPH-C1"])
    assert report.verdict("GRAPH-C2").status is Status.VIOLATED  # type: ignore[union-attr]
    assert report.verdict("GRAPH-C3").status is Status.NOT_CHECKED  # type: ignore[union-attr]
    assert report.exit_code == 1
    with pytest.raises(UsageError, match="matches no rule"):
        sonnx.check(C2, select="NOPE")
    model_report = sonnx.check(sonnx.load(C2), engine="direct", ignore="GRAPH-C2")
    assert model_report.outcome == "PARTIAL" and model_report.exit_code == 2


@pytest.mark.rule("GRAPH-C2")
def test_a_waiver_for_a_rule_not_checked_is_not_judged(tmp_path: Any) -> None:
    import hashlib

    digest = hashlib.sha256(C2.read_bytes()).hexdigest()
    w = tmp_path / "w.toml"
    w.write_text(
        'schema = "sonnx-waivers/1"\n[[waiver]]\nid = "W-1"\nrule = "GRAPH-C2"\n'
        f'model_sha256 = "{digest}"\nwhole = true\njustification = "j"\nauthor = "a"\ndate = 2026-01-01\n'
    )
    code, m = run_json(C2, "--ignore", "GRAPH-C2", "--waivers", str(w), "--waivers-date", "2026-11-27")
    assert code == 2 and m["outcome"] == "PARTIAL"
    assert m["waivers"]["used"][0]["result"] == "not judged: the rule was not checked"
