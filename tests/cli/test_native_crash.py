"""onnx's native code crashing on a model does not take sonnx down (spec/graph.rst, FORMAT-ONNX).

The model of :func:`tests.common.native.self_calling_default` kills any process
that runs onnx's shape inference on it (SIGSEGV). Every command that used to
run that inference in its own process runs here in a child process, so that the
old behaviour (exit -11, no report) fails the test instead of pytest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.common.native import save_crasher, sonnx_child


def _verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["rule"]: v for v in report["models"][0]["verdicts"]}


@pytest.fixture(scope="module")
def crasher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_crasher(tmp_path_factory.mktemp("native"))


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-FUNCTIONS")
def test_check_reports_format_onnx_unknown_naming_the_signal_and_runs_every_other_rule(crasher: Path) -> None:
    done = sonnx_child("check", "--json", "--engine", "direct", str(crasher))
    assert done.returncode == 1, (done.returncode, done.stderr)
    verdicts = _verdicts(json.loads(done.stdout))
    fo = verdicts["FORMAT-ONNX"]
    assert fo["status"] == "UNKNOWN" and "SIGSEGV" in fo["reason"], fo
    assert verdicts["GRAPH-FUNCTIONS"]["status"] == "VIOLATED"  # the rules after FORMAT-ONNX still ran
    assert len(verdicts) > 10


@pytest.mark.rule("STRICT-BROADCAST")
def test_the_strict_profiles_shape_inference_degrades_to_not_inferred(crasher: Path) -> None:
    done = sonnx_child("check", "--json", "--engine", "direct", "--profile", "sonnx-strict", str(crasher))
    assert done.returncode == 1, (done.returncode, done.stderr)
    broadcast = _verdicts(json.loads(done.stdout))["STRICT-BROADCAST"]
    assert broadcast["status"] == "UNKNOWN", broadcast
    assert "no inferred types" in broadcast["reason"] and "SIGSEGV" in broadcast["reason"], broadcast


@pytest.mark.rule("FORMAT-ONNX")
def test_a_serial_batch_survives_the_model_and_checks_the_others(crasher: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.onnx"
    other.write_bytes((Path(__file__).resolve().parents[2] / "examples" / "strict_dense.onnx").read_bytes())
    done = sonnx_child("batch", "--jobs", "1", "--json", "--engine", "direct", str(crasher), str(other))
    assert done.returncode == 1, (done.returncode, done.stderr)
    models = {Path(m["path"]).name: m for m in json.loads(done.stdout)["models"]}
    assert models["other.onnx"]["outcome"] == "PROVED"
    fo = {v["rule"]: v for v in models[crasher.name]["verdicts"]}["FORMAT-ONNX"]
    assert fo["status"] == "UNKNOWN" and "SIGSEGV" in fo["reason"]


def test_evidence_verify_survives_a_bundle_holding_the_model(crasher: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    made = sonnx_child("check", "--engine", "direct", "--evidence", str(bundle), str(crasher))
    assert made.returncode == 1, (made.returncode, made.stderr)
    done = sonnx_child("evidence", "verify", str(bundle))
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert "verified" in done.stdout and "files re-derived byte for byte" in done.stdout, done.stdout


def test_rewrite_with_inferred_shapes_is_a_one_line_error(crasher: Path, tmp_path: Path) -> None:
    done = sonnx_child("rewrite", str(crasher), str(tmp_path / "out.onnx"), "--infer-shapes")
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "SIGSEGV" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
