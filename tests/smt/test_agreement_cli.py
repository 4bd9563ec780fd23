"""Agreement of the two engines, and the command-line options --engine and --smt-dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sonnx.checking.proofs as check_proofs
import sonnx.smt as smt_pkg
from sonnx.base.verdict import Status, Verdict, Witness
from sonnx.checking.agreement import combine, smt_only
from sonnx.smt.engine import SmtRun
from tests.common.cli import check

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def call(*argv: str) -> tuple[int, str, str]:
    return check(*argv)


def test_combine_rules() -> None:
    w = Witness("w", {})
    direct = [Verdict.proved("A"), Verdict.violated("B", w), Verdict.proved("C"), Verdict.violated("D", w)]
    smt = [
        Verdict.proved("A", engine="smt/search"),
        Verdict.proved("B", engine="smt/search"),
        Verdict.unknown("C", "rlimit", engine="smt"),
        Verdict.unknown("D", "rlimit", engine="smt"),
        Verdict.proved("X", engine="smt/search"),
    ]
    out, extra, dis = combine(direct, smt)
    assert [v.rule_id for v in out] == ["A", "B", "C", "D"]
    assert out[0].status is Status.PROVED and out[0].engine == "direct+smt/search"
    assert out[1].status is Status.UNKNOWN and (out[1].reason or "").startswith(
        "engines disagree: direct says VIOLATED, smt says PROVED"
    )
    assert out[2].status is Status.UNKNOWN  # PROVED by one engine only is not a pass
    assert out[3].status is Status.VIOLATED
    assert [v.rule_id for v in extra] == ["X"]
    assert [d.split(":")[0] for d in dis] == ["B", "C"]
    only, extra2 = smt_only(direct, smt)
    assert [v.engine for v in only] == ["smt/search", "smt/search", "smt", "smt"] and len(extra2) == 1


@pytest.mark.rule("GRAPH-ARITY")
def test_engine_smt_keeps_the_profile_severity() -> None:
    # GRAPH-ARITY is a warning in the sonnx profile; the encoding, which knows no profile, must not make it an
    # error (cnn_block's MaxPool leaves its optional Indices out)
    for engine in ("smt", "both"):
        code, out, _ = call("--json", "--engine", engine, str(EXAMPLES / "cnn_block.onnx"))
        v = next(v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == "GRAPH-ARITY")
        assert code == 0 and v["status"] == "VIOLATED" and v["severity"] == "warning", (engine, v)
    code, out, _ = call("--json", "--engine", "smt", "--profile", "sonnx-strict", str(EXAMPLES / "cnn_block.onnx"))
    v = next(v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == "GRAPH-ARITY")
    assert code == 1 and v["severity"] == "error"


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-DETERMINISM")
def test_default_engine_is_both_and_reports_solver_parameters() -> None:
    code, out, _ = call("--json", str(EXAMPLES / "seed001_example.onnx"))
    assert code == 1
    m = json.loads(out)["models"][0]
    assert m["smt"]["rlimit"] > 0 and m["smt"]["random_seed"] == 0 and m["smt"]["mode"] == "search"
    engines = {v["rule"]: v["engine"] for v in m["verdicts"]}
    assert engines["GRAPH-ACYCLIC"] == "direct+smt/search"
    # graph determinism is in the rule table: both engines decide it (the direct one by reachability)
    assert engines["GRAPH-DETERMINISM"] == "direct+smt/search" and m["smt"]["findings"] == []


def test_auto_runs_both_engines_up_to_its_limit_and_says_so_above(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--engine auto`` runs the SMT proofs up to SMT_AUTO_LIMIT operations; above, the report says why not."""
    model = str(EXAMPLES / "cnn_block.onnx")
    code, out, _ = call("--json", model)
    m = json.loads(out)["models"][0]
    assert code == 0 and m["smt"]["mode"] == "search" and "skipped" not in m["smt"]
    monkeypatch.setattr(check_proofs, "SMT_AUTO_LIMIT", 2)
    code, out, _ = call("--json", model)
    m = json.loads(out)["models"][0]
    assert code == 0 and "above the automatic SMT limit of 2" in m["smt"]["skipped"]
    assert {v["engine"] for v in m["verdicts"]} == {"direct"}


def test_help_states_the_automatic_limit() -> None:
    import argparse

    from sonnx.cli.check import add_check_arguments

    parser = argparse.ArgumentParser()
    add_check_arguments(parser)
    shown = " ".join(parser.format_help().split())
    assert f"auto (default) is both up to {check_proofs.SMT_AUTO_LIMIT:,} operations" in shown


def test_engine_direct_runs_no_solver() -> None:
    code, out, _ = call("--json", "--engine", "direct", str(EXAMPLES / "cnn_block.onnx"))
    m = json.loads(out)["models"][0]
    assert code == 0 and "smt" not in m
    assert {v["engine"] for v in m["verdicts"]} == {"direct"}


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_engine_smt_gives_smt_verdicts() -> None:
    code, out, _ = call("--json", "--engine", "smt", str(EXAMPLES / "acyclic_cycle.onnx"))
    m = json.loads(out)["models"][0]
    assert code == 1
    cyc = next(v for v in m["verdicts"] if v["rule"] == "GRAPH-ACYCLIC")
    assert cyc["engine"] == "smt" and cyc["status"] == "VIOLATED" and cyc["witness"]["mode"] == "search"


@pytest.mark.rule("GRAPH-C2")
def test_disagreement_is_a_tool_error_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    real = smt_pkg.run_smt

    def lying(model, settings=None, mode=None, progress=None, jobs=None, **kw):  # type: ignore[no-untyped-def]
        run = real(model, settings, mode, progress, jobs, **kw)
        flipped = [
            Verdict.violated(v.rule_id, Witness("invented", {}), engine="smt") if v.rule_id == "GRAPH-C2" else v
            for v in run.verdicts
        ]
        return SmtRun(flipped, run.obligations, run.parameters, run.mode)

    monkeypatch.setattr(check_proofs, "run_smt", lying)  # the name the pipeline calls
    code, out, err = call(str(EXAMPLES / "cnn_block.onnx"))
    assert code == 2
    assert "engines disagree: direct says PROVED, smt says VIOLATED" in out
    assert "tool error" in err
