"""Bundles that record ``--quant-steps`` and declared-output contradictions: written, replayed, forged."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from sonnx.base.errors import UsageError
from sonnx.checking.options import CheckOptions
from tests.common.builders import shifted_qdq
from tests.common.bundles import copy_of, edit_json, rehash_all, verify, write
from tests.crosscheck.test_declared_outputs import LINE, _classifier


@pytest.fixture(scope="module")
def quant_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("quant")
    onnx.save(shifted_qdq(0), str(d / "qdq.onnx"))
    dest = d / "bundle"
    write(dest, d / "qdq.onnx", "--cross-check", "onnxruntime,reference", "--quant-steps", "2")
    return dest


@pytest.fixture(scope="module")
def misfit_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("misfit")
    onnx.save(_classifier([1], ["N", 3]), str(d / "clf.onnx"))
    np.savez(d / "x10.npz", X=np.linspace(0, 1, 20, dtype=np.float32).reshape(10, 2))
    dest = d / "bundle"
    assert write(dest, d / "clf.onnx", "--inputs", str(d / "x10.npz"), "--cross-check", "onnxruntime,reference") == 0
    return dest


def test_the_step_option_is_recorded_and_replayed(quant_bundle: Path) -> None:
    m = json.loads((quant_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert m["options"]["tolerance"] == {"atol": None, "rtol": None, "ulp": None, "quant_steps": 2}
    assert m["command_line"][-3:] == ["--quant-steps", "2", "model/qdq.onnx"]
    report = json.loads((quant_bundle / "crosscheck.json").read_text(encoding="utf-8"))["report"]
    assert report["step_tolerances"]["y"]["steps"] == 2
    page = (quant_bundle / "report.html").read_text(encoding="utf-8")
    assert "Tolerance in quantization steps: 2 steps of 0.25 (DequantizeLinear:dq)" in page
    code, out = verify(quant_bundle)
    assert code == 0 and out.startswith("verified"), out


def test_an_edited_step_count_is_refused(quant_bundle: Path, tmp_path: Path) -> None:
    d = copy_of(quant_bundle, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["options"]["tolerance"].update(quant_steps=1))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "crosscheck.json" in out


@pytest.mark.parametrize("value", [0, 1001, "2", 2.0, True])
def test_a_recorded_step_count_out_of_bounds_is_refused(quant_bundle: Path, tmp_path: Path, value: Any) -> None:
    d = copy_of(quant_bundle, tmp_path)
    edit_json(d / "manifest.json", lambda m: m["options"]["tolerance"].update(quant_steps=value))
    rehash_all(d)
    assert verify(d)[0] == 2


def test_the_recorded_tolerance_has_exactly_its_keys() -> None:
    recorded = CheckOptions(oracles=("reference",)).recorded()
    assert tuple(recorded["tolerance"]) == ("atol", "rtol", "ulp", "quant_steps")
    del recorded["tolerance"]["quant_steps"]
    with pytest.raises(UsageError, match="exactly the keys atol, rtol, ulp, quant_steps"):
        CheckOptions.from_recorded(recorded, None)


def test_declared_output_misfits_are_rederived(misfit_bundle: Path, tmp_path: Path) -> None:
    verdicts = json.loads((misfit_bundle / "verdicts.json").read_text(encoding="utf-8"))
    details = [v["details"] for v in verdicts["models"][0]["verdicts"] if v["rule"].startswith("EXEC-CROSSCHECK")]
    assert details and all(f"numpy executor: {LINE}" in d["declared_output_misfits"] for d in details)
    page = (misfit_bundle / "report.html").read_text(encoding="utf-8")
    assert "Warning: NumPy executor: output &#x27;label&#x27; is declared INT64 [1]" in page
    assert verify(misfit_bundle)[0] == 0
    d = copy_of(misfit_bundle, tmp_path)
    edit_json(d / "crosscheck.json", lambda doc: doc["report"]["subject"].update(declared_output_misfits=[]))
    rehash_all(d)
    code, out = verify(d)
    assert code == 1 and "crosscheck.json" in out


def test_trusted_figures_keep_their_misfits_and_steps(
    misfit_bundle: Path, quant_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # replay without onnxruntime: its figures are read back
    for bundle in (misfit_bundle, quant_bundle):
        code, out = verify(bundle, "--trust", "crosscheck")
        assert code == 0 and "taken on trust: the onnxruntime figures of crosscheck.json" in out, out


def test_a_trusted_oracle_misfit_that_is_not_a_string_is_refused(
    misfit_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    d = copy_of(misfit_bundle, tmp_path)

    def forge(doc: dict[str, Any]) -> None:
        for o in doc["report"]["oracles"]:
            if o["oracle"] == "onnxruntime":
                o["declared_output_misfits"][0]["why"] = 1

    edit_json(d / "crosscheck.json", forge)
    rehash_all(d)
    code, out = verify(d, "--trust", "crosscheck")
    assert code == 1 and "crosscheck.json oracle 'onnxruntime' misfit: 1 has the wrong type" in out
