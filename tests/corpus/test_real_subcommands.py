"""What the subcommands around the check do on real exports of tests/data/real/ (items of the real-model review).

Each test states, on a real export, one thing a subcommand must do: draw a
Loop's trip count and an embedding's indices from the model's own domain so
that validation terminates, run only the input sets asked for, stop at its
budget, say that a comparison could not be made rather than that two models
differ, refuse a file onnx's full check rejects, take string inputs from a
file, print a report for a ``map(string -> float)`` input, and not name a
seed where a file gave the inputs. A subprocess that passes the hang guard
fails its test; the guard is no timing target.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from sonnx.cli import check_main, main
from tests.common.cli import call

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "real"

HANG_GUARD_S = 120.0
"""Seconds after which a subcommand is taken to hang (they take a few seconds each; this is no timing target)."""

LOOP = DATA / "loop_tripcount.torchscript.onnx"
ALBERT = DATA / "albert_tiny.torchscript.onnx"
HANGING_SEED = 11
"""A seed whose ``extreme`` set once gave the Loop's trip count 2**63 - 1, when integers were drawn over the dtype."""


def _sonnx(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sonnx", *argv], capture_output=True, text=True, check=False,
                          timeout=HANG_GUARD_S)


@pytest.mark.parametrize("command", ["rewrite", "equiv"])
def test_the_validation_draws_the_trip_count_from_the_models_domain(command: str, tmp_path: Path) -> None:
    """Every set, the extreme one included, stays within the Loop's bounded trip count, so the run ends."""
    target = str(tmp_path / "out.onnx") if command == "rewrite" else str(LOOP)
    proc = _sonnx(command, "-q", "--seed", str(HANGING_SEED), str(LOOP), target, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    sets = doc["validation"] if command == "rewrite" else doc["numeric"]
    assert [s["set"] for s in sets] == ["normal", "signed", "extreme"]
    assert all(0 <= s["inputs"]["steps"]["min"] <= s["inputs"]["steps"]["max"] <= 8 for s in sets), sets


def test_equiv_runs_only_the_sets_asked_for() -> None:
    proc = _sonnx("equiv", "-q", "--seed", str(HANGING_SEED), "--sets", "normal", str(LOOP), str(LOOP), "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [s["set"] for s in json.loads(proc.stdout)["numeric"]] == ["normal"]


def test_a_trip_count_given_at_the_limit_stops_at_the_budget(tmp_path: Path) -> None:
    given = tmp_path / "steps.npz"
    np.savez(given, x=np.ones((1, 4), np.float32), steps=np.array(2**63 - 1, dtype=np.int64))
    proc = _sonnx("equiv", "-q", str(LOOP), str(LOOP), "--inputs", str(given), "--budget", "0.5")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "NOT ESTABLISHED" in proc.stdout and "not compared" in proc.stdout, proc.stdout
    assert "budget of 0.5 s exceeded" in proc.stdout, proc.stdout


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_albert_validates_on_drawn_token_types(exporter: str, tmp_path: Path) -> None:
    """The token type ids are drawn within the two-row table, so both models run on every set."""
    code, out, err = call(main, "rewrite", "-q", str(DATA / f"albert_tiny.{exporter}.onnx"),
                          str(tmp_path / "out.onnx"))
    assert code == 0 and "NOT EQUIVALENT" not in out, out + err


def test_a_comparison_that_could_not_be_made_is_not_a_difference(tmp_path: Path) -> None:
    """Token type 5 is outside ALBERT's two-row table: neither model runs, so nothing is compared, exit 2."""
    given = dict(np.load(DATA / "inputs" / "albert_tiny.npz"))
    given["token_type_ids"] = np.full_like(given["token_type_ids"], 5)
    path = tmp_path / "outside.npz"
    np.savez(path, **given)
    out_model = tmp_path / "out.onnx"
    code, out, err = call(main, "rewrite", "-q", str(ALBERT), str(out_model), "--inputs", str(path))
    assert code == 2 and "validation could not be made" in out and not out_model.exists(), out + err
    assert "differs" not in out, out
    code, out, err = call(main, "equiv", "-q", str(ALBERT), str(ALBERT), "--inputs", str(path))
    assert code == 2 and out.startswith("NOT ESTABLISHED"), out + err


@pytest.mark.rule("FORMAT-ONNX")
def test_rewrite_refuses_a_file_format_onnx_rejects(tmp_path: Path) -> None:
    """A float16 export whose output is declared float: onnx's full check refuses it, so rewrite writes nothing."""
    model = onnx.load(str(DATA / "conv_fp16.torchscript.onnx"))
    model.graph.output[0].type.tensor_type.elem_type = onnx.TensorProto.FLOAT
    bad = tmp_path / "fp16_declared_float.onnx"
    onnx.save(model, str(bad))
    code, out, err = call(main, "rewrite", "-q", str(bad), str(tmp_path / "out.onnx"))
    assert code == 2 and "FORMAT-ONNX violated" in err and len(err.strip().splitlines()) == 1, out + err
    assert not (tmp_path / "out.onnx").exists()


def test_string_inputs_from_a_file(tmp_path: Path) -> None:
    model = DATA / "sk_label_encoder.skl2onnx.onnx"
    colours = np.array(["blue", "red", "violet", "green", "red"])
    feeds = tmp_path / "colours.npz"
    np.savez(feeds, colour=colours)
    result = tmp_path / "out.npz"
    code, out, err = call(main, "run", "-q", str(model), "--inputs", str(feeds), "--output", str(result))
    assert code == 0, out + err
    (expected,) = ort.InferenceSession(str(model)).run(None, {"colour": colours.astype(object)})
    assert np.array_equal(np.load(result)["variable"], expected)


@pytest.mark.rule("FORMAT-ONNX")
def test_a_map_input_keeps_the_report() -> None:
    code, out, err = call(check_main, "-q", str(DATA / "sk_dict_vectorizer.skl2onnx.onnx"), "--orders", "3",
                          "--json")
    verdicts = {v["rule"]: v["status"] for v in json.loads(out)["models"][0]["verdicts"]}
    assert verdicts["FORMAT-ONNX"] == "PROVED" and "EXEC-ORDERS" in verdicts, out + err
    assert code in (0, 2)


def test_reports_name_the_input_file_not_a_seed() -> None:
    given = DATA / "inputs" / "albert_tiny.npz"
    model = str(DATA / "albert_tiny.torchscript.onnx")
    argv = ("-q", model, "--orders", "3", "--seed", "7", "--inputs", str(given), "--cross-check", "onnxruntime")
    code, out, err = call(check_main, *argv)
    assert code == 0 and "(seed 7)" not in out, out + err
    code, out, err = call(check_main, *argv, "--json")
    orders = next(v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == "EXEC-ORDERS")
    assert orders["details"].get("input_seed") is None, orders["details"]


def test_run_stops_a_given_trip_count_at_its_budget(tmp_path: Path) -> None:
    """A trip count given in a file is run as given, as a runtime would; ``--budget`` bounds it (exit 2, one line)."""
    given = tmp_path / "steps.npz"
    np.savez(given, x=np.ones((1, 4), np.float32), steps=np.array(2**63 - 1, dtype=np.int64))
    proc = _sonnx("run", "-q", str(LOOP), "--inputs", str(given), "--budget", "0.5")
    assert proc.returncode == 2 and proc.stderr.strip().endswith("budget of 0.5 s exceeded; the run was stopped")
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
