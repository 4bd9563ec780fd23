"""The command line, through its entry functions (exit codes, text, JSON, errors)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sonnx.cli import check_main, main
from sonnx.rules import RULES
from tests.common.cli import call

EX = Path(__file__).resolve().parents[2] / "examples"




def test_conforming_model_exits_0_and_lists_every_rule() -> None:
    code, out, err = call(check_main, str(EX / "cnn_block.onnx"))
    assert code == 0, out + err
    for rule in RULES:
        if rule.profile == "sonnx":
            assert rule.id in out
    assert "result: PROVED" in out


@pytest.mark.rule("GRAPH-R1")
def test_violation_exits_1_with_witness() -> None:
    code, out, _ = call(check_main, str(EX / "seed001_example.onnx"))
    assert code == 1
    assert "VIOLATED  GRAPH-R1 " in out
    assert "witness:" in out and "sub" in out.lower()


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_json_is_schema_versioned_and_stable() -> None:
    code1, out1, _ = call(check_main, "--json", str(EX / "acyclic_cycle.onnx"), str(EX / "cnn_block.onnx"))
    code2, out2, _ = call(check_main, "--json", str(EX / "acyclic_cycle.onnx"), str(EX / "cnn_block.onnx"))
    assert code1 == code2 == 1
    assert out1 == out2
    doc = json.loads(out1)
    assert doc["schema_version"] == 1
    assert [m["path"] for m in doc["models"]] == [str(EX / "acyclic_cycle.onnx"), str(EX / "cnn_block.onnx")]
    first = doc["models"][0]
    assert first["outcome"] == "VIOLATED"
    rules = [v["rule"] for v in first["verdicts"]]
    assert rules == [r.id for r in RULES if r.profile == "sonnx"]
    cyc = next(v for v in first["verdicts"] if v["rule"] == "GRAPH-ACYCLIC")
    assert cyc["status"] == "VIOLATED" and "witness" in cyc


def test_sonnx_check_subcommand_is_the_same_as_sonnx_check() -> None:
    a = call(check_main, "--json", str(EX / "c2_unused_input.onnx"))
    b = call(main, "check", "--json", str(EX / "c2_unused_input.onnx"))
    assert a == b


@pytest.mark.rule("STRICT-OPERATORS", "STRICT-ATTRIBUTES")
def test_strict_profile_and_operator_set() -> None:
    code, out, _ = call(check_main, "--profile", "sonnx-strict", str(EX / "strict_default_attribute.onnx"))
    assert code == 1 and "STRICT-ATTRIBUTES" in out
    code, out, _ = call(
        check_main, "--profile", "sonnx-strict", "--operators", "Relu,Add", str(EX / "cnn_block.onnx")
    )
    assert code == 1 and "VIOLATED  STRICT-OPERATORS" in out


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--profile", "nope", "x.onnx"],
        ["--operators", "Add", "x.onnx"],
        ["--no-such-option", "x.onnx"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv: list[str]) -> None:
    code, out, err = call(check_main, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("sonnx-check: error:")


def test_unreadable_model_among_others_exits_2_and_reports_each(tmp_path: Path) -> None:
    code, out, err = call(check_main, str(tmp_path / "missing.onnx"), str(EX / "cnn_block.onnx"))
    assert code == 2
    assert "result: PROVED" in out and "missing.onnx" not in out  # the unreadable model is said once, on stderr
    assert err.count("\n") == 1 and "missing.onnx: no such file" in err
    code, out, err = call(check_main, "--json", str(tmp_path / "missing.onnx"), str(EX / "cnn_block.onnx"))
    assert code == 2 and "no such file" in out and err.count("\n") == 1  # JSON for the machine, a line for the person


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_progress_goes_to_stderr_only() -> None:
    code, out, err = call(check_main, "--progress", "--json", str(EX / "cnn_block.onnx"))
    assert code == 0
    json.loads(out)
    assert "checking GRAPH-ACYCLIC" in err


def test_rules_listing() -> None:
    code, out, _ = call(main, "rules")
    assert code == 0
    lines = [ln for ln in out.splitlines() if not ln.startswith(" ")]
    assert [ln.split()[0] for ln in lines] == [r.id for r in RULES]
    for ln, r in zip(lines, RULES, strict=True):  # the short form is the title of the spec heading
        assert ln.endswith(f" {r.title}") and r.title == r.text.title
    assert "(error in sonnx-strict)" in out


def test_rules_named_show_the_spec_statement_and_rationale() -> None:
    code, out, _ = call(main, "rules", "GRAPH-C2", "GRAPH-ARITY")
    assert code == 0
    rule = {r.id: r for r in RULES}
    flat = " ".join(out.split())
    for rid in ("GRAPH-C2", "GRAPH-ARITY"):
        r = rule[rid]
        assert f"{rid}: {r.title}" in out and f"section {r.text.number}" in out
        assert " ".join(r.statement.split()) in flat
        assert r.rationale is not None and " ".join(r.rationale.split()) in flat
    assert "GRAPH-C1" not in out


def test_rules_json_holds_the_spec_texts() -> None:
    code, out, _ = call(main, "rules", "--json")
    assert code == 0
    got = json.loads(out)
    assert [g["id"] for g in got] == [r.id for r in RULES]
    for g, r in zip(got, RULES, strict=True):
        assert (g["title"], g["statement"], g["rationale"], g["section"]) == (
            r.title, r.statement, r.rationale, r.text.number)


def test_rules_refuses_an_unknown_id_in_one_line() -> None:
    code, out, err = call(main, "rules", "GRAPH-C2", "GRAPH-NOPE")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "no rule GRAPH-NOPE" in err


@pytest.mark.parametrize(
    ("entry", "argv", "named"),
    [
        ("check", ["-Z"], "-Z"),
        ("check", ["--nonsense=1"], "--nonsense"),
        ("check", ["--profile", "sonnx", "--enginee", "direct"], "--enginee"),
        ("sonnx", ["run", "--bogus"], "--bogus"),
        ("sonnx", ["--bogus", "rules"], "--bogus"),
    ],
)
def test_an_unknown_option_is_named_even_when_a_positional_argument_is_missing(
    entry: str, argv: list[str], named: str
) -> None:
    code, out, err = call(check_main if entry == "check" else main, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"error: unrecognized option {named} (see --help)" in err


@pytest.mark.parametrize("command", ["sonnx-check", "sonnx"])
def test_dash_capital_v_prints_the_version_like_dash_dash_version(command: str) -> None:
    exe = str(Path(sys.executable).with_name(command))
    short, long = (subprocess.run([exe, f], capture_output=True, text=True, timeout=120) for f in ("-V", "--version"))
    assert short.returncode == 0 and short.stderr == "" and short.stdout.startswith("sonnx ")
    assert (short.returncode, short.stdout) == (long.returncode, long.stdout)
