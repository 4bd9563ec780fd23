"""Real exports (tests/data/real/, written by tools/make_real_models.py) run and match onnxruntime (issue 13).

The corpus: torch.onnx's TorchScript exporter (opset 17) and dynamo exporter
(opset 18) on small MobileNetV3, ShuffleNetV2, ConvNeXt, ViT, BERT and GPT-2
configurations, and skl2onnx pipelines (scaler and logistic regression with
and without ZipMap, random forest, gradient boosting, normalizer and SVC,
column selection), all with seeded random weights.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sonnx.cli import check_main, main
from sonnx.differential.run import cross_check
from tests.common.cli import call

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted((ROOT / "tests" / "data" / "real").glob("*.onnx"))




def test_the_corpus_is_there() -> None:
    manifest = json.loads((ROOT / "tests" / "data" / "real" / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(m["file"] for m in manifest["models"]) == [p.name for p in REAL]
    producers = {m["producer"].split(" (")[-1].rstrip(")") for m in manifest["models"] if "torch" in m["producer"]}
    assert producers == {"torchscript", "dynamo"} and any("scikit-learn" in m["producer"] for m in manifest["models"])


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_sonnx_run_matches_onnxruntime(path: Path) -> None:
    report = cross_check(str(path), oracles=("onnxruntime",))
    (ort,) = report.results
    assert ort.outcome == "AGREE", [c.summary() for c in ort.comparisons.values()] + [ort.run.message]
    assert report.exit_code == 0


REFERENCE_CANNOT_LOAD = {"sk_scaler_logreg_zipmap.skl2onnx.onnx": "ZipMap"}
"""Models onnx's reference evaluator refuses to load (it has no kernel for the operator named)."""


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_orders_crosschecks_and_the_evidence_bundle(path: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "evidence"
    code, out, err = call(check_main, "-q", str(path), "--orders", "3", "--cross-check", "reference,onnxruntime",
                          "--evidence", str(bundle), "--json")
    doc = json.loads(out)["models"][0]["verdicts"]
    verdicts = {v["rule"]: v["status"] for v in doc}
    assert verdicts["EXEC-CROSSCHECK-ONNXRUNTIME"] == "TESTED", out
    if path.name in REFERENCE_CANNOT_LOAD:
        ref = next(v for v in doc if v["rule"] == "EXEC-CROSSCHECK-REFERENCE")
        assert ref["status"] == "UNKNOWN" and REFERENCE_CANNOT_LOAD[path.name] in ref["reason"], ref
    else:
        assert verdicts["EXEC-CROSSCHECK-REFERENCE"] == "TESTED", out
    assert verdicts["EXEC-ORDERS"] in ("PROVED", "TESTED"), out
    code, out, err = call(main, "evidence", "verify", str(bundle))
    assert code == 0 and "FAILED" not in out, out + err


def test_random_schedules_do_not_depend_on_string_hashing(tmp_path: Path) -> None:
    """Seeded random schedules are the same in every process (a set once made them follow PYTHONHASHSEED)."""
    path = str(ROOT / "tests" / "data" / "real" / "gpt2_tiny.dynamo.onnx")
    seen = []
    for hash_seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run(
            [sys.executable, "-m", "sonnx", "check", "-q", path, "--orders", "3", "--engine", "direct", "--json"],
            capture_output=True, text=True, env=env, check=False, timeout=300,
        )
        doc = json.loads(proc.stdout)
        orders = next(v for v in doc["models"][0]["verdicts"] if v["rule"] == "EXEC-ORDERS")
        seen.append([s["sha256"] for s in orders["details"]["schedules"]])
    assert seen[0] == seen[1] == seen[2]
    assert len(set(seen[0])) == 4  # file order and three distinct random orders
