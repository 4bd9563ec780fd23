"""What the tools around the check must do on real exports of tests/data/real/ (known deviations as strict xfails).

Each test states, on a real export, one thing a subcommand must do: finish
within a stated budget, say that a comparison could not be made rather than
that two models differ, take string inputs from a file, print a report for a
``map(string -> float)`` input, and not name a seed where a file gave the
inputs. A deviation sonnx still has is a strict xfail with its reason, so the
test fails as soon as the deviation is gone and the mark must go with it.

The budget tests run a subprocess until its budget is spent when the tool does
not terminate; they run with ``SONNX_CORPUS=all`` (``make corpus``) and are
skipped, with that reason, in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from sonnx.cli import check_main, main
from tests.common.cli import call

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "real"
EVERY_MODEL = os.environ.get("SONNX_CORPUS", "") == "all"

BUDGET_S = 60.0
"""Wall-clock budget of one subcommand on one corpus model (they take under 3 s each when they terminate)."""

LOOP = DATA / "loop_tripcount.torchscript.onnx"
HANGING_SEED = 11
"""A seed whose ``extreme`` validation set gives the Loop's trip count 2**63 - 1 (``rewrite.validate.input_sets``)."""

BUDGETED = [
    pytest.param(["rewrite", "-q", "--seed", str(HANGING_SEED), str(LOOP), "OUT"], id="rewrite-loop",
                 marks=pytest.mark.xfail(strict=True, raises=subprocess.TimeoutExpired,
                                         reason="the extreme set gives the trip count 2**63 - 1 and the Loop runs")),
    pytest.param(["equiv", "-q", "--seed", str(HANGING_SEED), "--sets", "normal", str(LOOP), str(LOOP)],
                 id="equiv-sets-normal-loop",
                 marks=pytest.mark.xfail(strict=True, raises=subprocess.TimeoutExpired,
                                         reason="equiv runs every set and filters the report afterwards")),
]


@pytest.mark.skipif(not EVERY_MODEL, reason="spends its budget while the tool hangs: SONNX_CORPUS=all (make corpus)")
@pytest.mark.parametrize("argv", BUDGETED)
def test_subcommands_terminate_within_the_budget(argv: list[str], tmp_path: Path) -> None:
    argv = [str(tmp_path / "out.onnx") if a == "OUT" else a for a in argv]
    proc = subprocess.run([sys.executable, "-m", "sonnx", *argv], capture_output=True, text=True, check=False,
                          timeout=BUDGET_S)
    assert proc.returncode in (0, 1, 2), proc.stderr


@pytest.mark.xfail(strict=True, reason="rewrite reports NOT EQUIVALENT (exit 1) when neither model can run")
@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_a_comparison_that_could_not_be_made_is_not_a_difference(exporter: str, tmp_path: Path) -> None:
    """ALBERT's random token type ids fall outside its two-row table: whatever rewrite says, it is not "differs"."""
    code, out, err = call(main, "rewrite", "-q", str(DATA / f"albert_tiny.{exporter}.onnx"),
                          str(tmp_path / "out.onnx"))
    assert code != 1 and "NOT EQUIVALENT" not in out, out + err


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
