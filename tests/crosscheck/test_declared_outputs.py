"""Declared output types against the values runs produce: ``sonnx run``, the cross-check, its verdicts.

The model reproduces the structure of a LightGBM classifier exported by
onnxmltools: a TreeEnsembleClassifier whose ``label`` output is declared
``[1]`` while a batch of N rows gives N labels. onnxruntime only warns about
it; sonnx reports it as a warning and changes no outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.cli import check_main, main
from sonnx.differential.run import cross_check
from sonnx.execution.signature import output_misfits
from sonnx.loader import load_model
from tests.common.cli import call

LINE = "output 'label' is declared INT64 [1] but the run produced int64[10] (dimension 0 is 10, declared 1)"


def _classifier(label_shape: list[int | str], probs_shape: list[int | str]) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 2])
    label = helper.make_tensor_value_info("label", TensorProto.INT64, label_shape)
    probs = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, probs_shape)
    node = helper.make_node(
        "TreeEnsembleClassifier",
        ["X"],
        ["label", "probabilities"],
        domain="ai.onnx.ml",
        nodes_treeids=[0, 0, 0],
        nodes_nodeids=[0, 1, 2],
        nodes_featureids=[0, 0, 0],
        nodes_values=[0.5, 0.0, 0.0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
        nodes_truenodeids=[1, 0, 0],
        nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0] * 6,
        class_nodeids=[1, 1, 1, 2, 2, 2],
        class_ids=[0, 1, 2, 0, 1, 2],
        class_weights=[0.6, 0.3, 0.1, 0.1, 0.2, 0.7],
        classlabels_int64s=[4, 5, 6],
        post_transform="NONE",
    )
    g = helper.make_graph([node], "lgbm_like", [x], [label, probs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15), helper.make_opsetid("ai.onnx.ml", 3)])
    m.ir_version = 8
    return m


@pytest.fixture()
def batch10(tmp_path: Path) -> tuple[str, str]:
    """The classifier declaring ``label`` [1], and an input file of 10 rows."""
    model = tmp_path / "clf.onnx"
    onnx.save(_classifier([1], ["N", 3]), str(model))
    inputs = tmp_path / "x10.npz"
    np.savez(inputs, X=np.linspace(0, 1, 20, dtype=np.float32).reshape(10, 2))
    return str(model), str(inputs)


def test_output_misfits_names_each_contradicted_output(tmp_path: Path) -> None:
    onnx.save(_classifier([1], ["N", 3]), str(tmp_path / "m.onnx"))
    model = load_model(str(tmp_path / "m.onnx"))
    x = np.zeros((10, 2), np.float32)
    outputs = {"label": np.zeros(10, np.int64), "probabilities": np.zeros((10, 3), np.float32)}
    misfits = output_misfits(model, {"X": x}, outputs)
    assert [m.line() for m in misfits] == [LINE]
    # the same values with a batch of 1 fit the declaration
    assert output_misfits(model, {"X": x[:1]}, {"label": np.zeros(1, np.int64)}) == []


@pytest.mark.parametrize(
    "value,why",
    [
        (np.zeros((10, 3), np.float64), "element type float64 is given"),
        (np.zeros((10,), np.float32), "rank 1 (shape [10]) is given"),
        (np.zeros((10, 4), np.float32), "dimension 1 is 4, declared 3"),
        (np.zeros((9, 3), np.float32), "dimension 0 ('N') is 9, but 'N' is 10 in input 'X'"),
    ],
)
def test_element_type_rank_static_and_symbolic_dimensions_are_compared(
    tmp_path: Path, value: np.ndarray, why: str
) -> None:
    onnx.save(_classifier(["N"], ["N", 3]), str(tmp_path / "m.onnx"))
    model = load_model(str(tmp_path / "m.onnx"))
    inputs = {"X": np.zeros((10, 2), np.float32)}
    misfits = output_misfits(model, inputs, {"label": np.zeros(10, np.int64), "probabilities": value})
    assert [(m.name, m.why) for m in misfits] == [("probabilities", why)]


def test_a_symbol_is_bound_across_outputs_too(tmp_path: Path) -> None:
    onnx.save(_classifier(["M"], ["M", 3]), str(tmp_path / "m.onnx"))
    model = load_model(str(tmp_path / "m.onnx"))
    outputs = {"label": np.zeros(4, np.int64), "probabilities": np.zeros((5, 3), np.float32)}
    (m,) = output_misfits(model, {"X": np.zeros((10, 2), np.float32)}, outputs)
    assert m.name == "probabilities" and m.why == "dimension 0 ('M') is 5, but 'M' is 4 in input 'label'"


def test_sonnx_run_warns_and_lists_in_json(batch10: tuple[str, str]) -> None:
    model, inputs = batch10
    code, out, _ = call(main, "run", "-q", model, "--inputs", inputs)
    assert code == 0 and f"warning: {LINE}\n" in out and out.count("warning:") == 1
    code, out, _ = call(main, "run", "-q", model, "--inputs", inputs, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["declared_output_misfits"] == [
        {"output": "label", "declared": "INT64 [1]", "produced": "int64[10]", "why": "dimension 0 is 10, declared 1"}
    ]


def test_sonnx_run_is_silent_when_the_outputs_fit(tmp_path: Path) -> None:
    onnx.save(_classifier(["N"], ["N", 3]), str(tmp_path / "m.onnx"))
    np.savez(tmp_path / "x.npz", X=np.zeros((10, 2), np.float32))
    code, out, _ = call(main, "run", "-q", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "x.npz"), "--json")
    assert code == 0 and json.loads(out)["declared_output_misfits"] == []


def test_crosscheck_reports_the_executor_and_each_oracle_without_changing_the_outcome(
    batch10: tuple[str, str],
) -> None:
    model, inputs = batch10
    report = cross_check(model, oracles=("reference", "onnxruntime"), inputs_file=inputs)
    assert report.exit_code == 0 and [m.line() for m in report.declared_misfits] == [LINE]
    for r in report.results:
        assert r.outcome == "AGREE" and [m.line() for m in r.declared_misfits] == [LINE], r.run.name
    code, out, _ = call(main, "crosscheck", "-q", model, "--inputs", inputs)
    assert code == 0 and f"  warning: numpy executor: {LINE}" in out and out.count(f"      warning: {LINE}") == 2
    code, out, _ = call(main, "crosscheck", "-q", model, "--inputs", inputs, "--json")
    doc = json.loads(out)
    assert doc["subject"]["declared_output_misfits"][0]["produced"] == "int64[10]"
    assert all(o["declared_output_misfits"][0]["output"] == "label" for o in doc["oracles"])


def test_crosscheck_verdicts_carry_the_misfits_in_their_details(batch10: tuple[str, str]) -> None:
    model, inputs = batch10
    code, out, _ = call(check_main, "-q", model, "--inputs", inputs, "--cross-check", "onnxruntime", "--json")
    (verdict,) = [v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == "EXEC-CROSSCHECK-ONNXRUNTIME"]
    assert code == 0 and verdict["status"] == "TESTED"
    assert verdict["details"]["declared_output_misfits"] == [f"numpy executor: {LINE}", f"onnxruntime: {LINE}"]


def _string_cast(tmp_path: Path) -> str:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.STRING, [3])
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING)
    m = helper.make_model(helper.make_graph([node], "s", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "s.onnx"))
    return str(tmp_path / "s.onnx")


def test_unicode_strings_of_the_reference_evaluator_are_strings(tmp_path: Path) -> None:
    path = _string_cast(tmp_path)
    model = load_model(path)
    unicode = np.array(["1.0", "2.0", "x"])
    assert unicode.dtype.kind == "U"
    assert output_misfits(model, {}, {"y": unicode}) == []
    assert output_misfits(model, {}, {"y": np.zeros(3, np.float32)})[0].why == "element type float32 is given"
    report = cross_check(path, oracles=("reference", "onnxruntime"))
    assert [r.outcome for r in report.results] == ["AGREE", "AGREE"]
    assert not report.declared_misfits and not any(r.declared_misfits for r in report.results)
