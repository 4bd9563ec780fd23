"""Input kinds, declared output shapes and quantization steps on real exports of tests/data/real/.

Each test gives a real converter's output what a user gives it from the
command line: strings in an ``.npz``, a map in a JSON inputs file, a batch
larger than a declared output, a quantized model under ``--quant-steps``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from sonnx.cli import check_main, main
from sonnx.differential.quant import step_tolerances
from sonnx.loader import load_model
from tests.common.cli import call, run_to_file

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "real"
LGBM = DATA / "lgbm_classifier.onnxmltools.onnx"
DICT = DATA / "sk_dict_vectorizer.skl2onnx.onnx"


def test_string_columns_from_an_npz_agree_with_onnxruntime(tmp_path: Path) -> None:
    feeds = tmp_path / "rows.npz"
    np.savez(feeds, colour=np.array([["red"], ["blue"], ["green"]]),
             amount=np.array([[1.5], [-0.25], [3.0]], dtype=np.float32))
    code, out, err = call(main, "crosscheck", "-q", str(DATA / "sk_string_columns.skl2onnx.onnx"), "--oracles",
                          "onnxruntime", "--inputs", str(feeds))
    assert code == 0 and "AGREE" in out and "inputs from" in out, out + err


def test_a_map_input_from_json_names_its_file_in_every_verdict(tmp_path: Path) -> None:
    model = load_model(str(DICT))
    (name,) = model.graph.inputs
    given = tmp_path / "features.json"
    given.write_text(json.dumps({name: {"map": {"a": 1.0, "c": -2.5}}}), encoding="utf-8")
    code, out, err = call(check_main, "-q", str(DICT), "--orders", "3", "--cross-check", "onnxruntime",
                          "--inputs", str(given), "--json")
    assert code in (0, 2), out + err
    verdicts = {v["rule"]: v for v in json.loads(out)["models"][0]["verdicts"]}
    orders = verdicts["EXEC-ORDERS"]
    assert orders["status"] in ("PROVED", "TESTED"), orders
    files = orders["details"]["inputs"]["files"]
    assert [f["sha256"] for f in files] == [hashlib.sha256(given.read_bytes()).hexdigest()]
    assert "input_seed" not in orders["details"]
    assert verdicts["EXEC-CROSSCHECK-ONNXRUNTIME"]["status"] == "TESTED", verdicts["EXEC-CROSSCHECK-ONNXRUNTIME"]


def test_a_map_model_is_partitioned_fused_and_executed(tmp_path: Path) -> None:
    ops = sorted({op.operator for op in load_model(str(DICT)).graph.operations})
    code, out, err = call(main, "partition", "-q", str(DICT), "--provider", f"ACC={','.join(ops)}", "--fused",
                          str(tmp_path / "fused.onnx"), "--execute", "-o", str(tmp_path / "p.json"), "--json")
    assert code == 0, out + err
    statuses = {v["rule"]: v["status"] for v in json.loads(out)["verdicts"]}
    assert statuses.get("PARTITION-FUSED") == "TESTED", out


@pytest.fixture()
def batch_of_ten(tmp_path: Path) -> Path:
    path = tmp_path / "ten.npz"
    np.savez(path, input=np.random.default_rng(0).standard_normal((10, 5)).astype(np.float32))
    return path


def test_run_names_an_output_larger_than_declared(batch_of_ten: Path) -> None:
    code, out, err = call(main, "run", "-q", str(LGBM), "--inputs", str(batch_of_ten))
    assert code == 0, err
    assert "warning: output 'label' is declared INT64 [1] but the run produced int64[10]" in out, out
    code, out, _ = call(main, "run", "-q", str(LGBM), "--inputs", str(batch_of_ten), "--json")
    assert [m["output"] for m in json.loads(out)["declared_output_misfits"]] == ["label"]


def test_the_crosscheck_names_it_for_every_runtime_and_still_agrees(batch_of_ten: Path) -> None:
    code, out, err = call(main, "crosscheck", "-q", str(LGBM), "--oracles", "onnxruntime", "--inputs",
                          str(batch_of_ten), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["outcome"] == "AGREE", out + err
    assert [m["output"] for m in doc["subject"]["declared_output_misfits"]] == ["label"]
    assert [m["output"] for m in doc["oracles"][0]["declared_output_misfits"]] == ["label"]


def test_step_tolerances_follow_the_exporters_quantization() -> None:
    qdq = step_tolerances(load_model(str(DATA / "mlp_qdq.ort.onnx")), 1)
    assert list(qdq) == ["y"] and "DequantizeLinear" in qdq["y"].describe()
    # dynamic quantization computes its scale at run time: no step is stated, so none is taken
    assert step_tolerances(load_model(str(DATA / "mlp_dynamic.ort.onnx")), 1) == {}


def test_quant_steps_are_recorded_in_the_bundle_and_replayed(tmp_path: Path) -> None:
    bundle = tmp_path / "evidence"
    code, out, err = call(check_main, "-q", str(DATA / "mlp_qdq.ort.onnx"), "--cross-check", "onnxruntime",
                          "--quant-steps", "2", "--evidence", str(bundle))
    assert code in (0, 2), out + err
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    assert "--quant-steps" in json.dumps(manifest) and '"quant_steps": 2' in json.dumps(manifest), manifest
    code, out, err = call(main, "evidence", "verify", "-q", str(bundle))
    assert code == 0, out + err


def test_run_writes_a_sequence_of_maps_as_json_that_reads_back(tmp_path: Path) -> None:
    """ZipMap's sequence(map(int64, float)) output: JSON in the inputs-file form, values as onnxruntime gives them."""
    import onnxruntime as ort

    from sonnx.execution.inputs.json_file import value_of

    path = DATA / "sk_scaler_logreg_zipmap.skl2onnx.onnx"
    x = np.random.default_rng(3).standard_normal((1, 6)).astype(np.float32)
    out = tmp_path / "out.json"
    code, text, err = run_to_file(path, {"X": x}, out)
    assert code == 0, text + err
    doc = json.loads(out.read_text(encoding="utf-8"))
    model = load_model(str(path))
    name = model.graph.outputs[-1]
    got = value_of("out", model.graph.tensor(name).type, doc[name])
    expected = ort.InferenceSession(str(path)).run([name], {"X": x})[0]
    assert got == [{k: np.float32(v) for k, v in m.items()} for m in expected]
    # an .npz cannot hold it: one line, nothing written
    code, text, err = run_to_file(path, {"X": x}, tmp_path / "o.npz")
    assert code == 2 and "write it to a .json file" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o.npz").exists()

