"""``sonnx run --output``: string outputs in an ``.npz`` as NumPy text, every kind in ``.json`` (read back exactly)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from sonnx.execution.inputs.json_file import file_form, value_of
from sonnx.loader import load_model
from tests.common.cli import run_to_file


def _identity(tmp_path: Path, elem_type: int) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="copy")], "g",
        [helper.make_tensor_value_info("x", elem_type, [2])], [helper.make_tensor_value_info("y", elem_type, [2])],
    )
    path = tmp_path / "identity.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10), str(path))
    return path


def test_string_outputs_go_to_an_npz_as_text(tmp_path: Path) -> None:
    model = _identity(tmp_path, TensorProto.STRING)
    code, out, err = run_to_file(model, {"x": np.array(["café", ""])}, tmp_path / "o.npz")
    assert code == 0, out + err
    assert np.load(tmp_path / "o.npz")["y"].tolist() == ["café", ""]


def test_json_outputs_read_back_bit_for_bit(tmp_path: Path) -> None:
    model_path = _identity(tmp_path, TensorProto.FLOAT)
    given = np.array([np.float32(0.1), np.float32("nan")], dtype=np.float32)
    out_path = tmp_path / "o.json"
    code, out, err = run_to_file(model_path, {"x": given}, out_path)
    assert code == 0, out + err
    doc = json.loads(out_path.read_text(encoding="utf-8"))
    assert doc["y"]["data"][1] == "NaN" and doc["y"]["dtype"] == "float"
    back = value_of("y", load_model(str(model_path)).graph.tensor("y").type, doc["y"])
    assert back.dtype == np.float32 and back.tobytes() == given.tobytes()


def test_the_file_form_of_maps_sequences_and_optionals() -> None:
    model = load_model(str(Path(__file__).resolve().parents[2] / "tests" / "data" / "real"
                          / "sk_scaler_logreg_zipmap.skl2onnx.onnx"))
    ttype = model.graph.tensor(model.graph.outputs[-1]).type
    value = [{0: np.float32(0.25), 1: np.float32(0.75)}]
    form = file_form(ttype, value)
    assert form == {"sequence": [{"map": {"0": 0.25, "1": 0.75}}]}
    assert value_of("p", ttype, form) == value
