"""Cross-checks of the NumPy executor against onnx's reference evaluator and onnxruntime, on real models."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from benchmarks.cnn_models import mobilenet_like, resnet50_like, vgg_like
from onnx import TensorProto, helper, numpy_helper

from sonnx.cli import check_main, main
from sonnx.differential import oracles as oracles_mod
from sonnx.differential.metrics import Tolerance
from sonnx.differential.oracles import OracleRun, lossless_ir_downgrade, topologically_sorted
from sonnx.differential.run import cross_check
from tests.common import peers
from tests.common.cli import call
from tests.common.peers import ort_refusal

EX = Path(__file__).resolve().parents[2] / "examples"
CONFORMING = [
    "cnn_block.onnx",
    "seed001_example.onnx",
    "unsorted_acyclic.onnx",
    "strict_default_attribute.onnx",
    "r1_unused_output.onnx",
]




def _save(m: onnx.ModelProto, path: Path, ir: int = 8) -> str:
    m.ir_version = ir
    onnx.save(m, str(path))
    return str(path)


def _single(
    op: str,
    opset: int,
    shape: list[int],
    inits: tuple[onnx.TensorProto, ...] = (),
    extra: tuple[str, ...] = (),
    **attrs: Any,
) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    n = helper.make_node(op, ["x", *extra], ["y"], **attrs)
    g = helper.make_graph([n], "g", [x], [y], initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("name", CONFORMING)
def test_conforming_examples_agree_with_both_oracles(name: str) -> None:
    r = cross_check(str(EX / name))
    assert r.exit_code == 0, r.to_json()
    assert [x.run.name for x in r.results] == ["reference", "onnxruntime"]
    for x in r.results:
        assert x.outcome == "AGREE" and x.comparisons
        for c in x.comparisons.values():
            assert c.ok and c.elements > 0 and c.max_abs is not None and c.max_abs <= 1e-5
    json.dumps(r.to_json(), allow_nan=False)


def test_unsorted_example_is_put_in_order_for_the_reference_evaluator() -> None:
    r = cross_check(str(EX / "unsorted_acyclic.onnx"))
    ref = r.results[0]
    assert any("topological order" in n for n in ref.run.notes)
    proto = onnx.load(str(EX / "unsorted_acyclic.onnx"))
    sorted_proto, moved = topologically_sorted(proto)
    assert moved and len(sorted_proto.graph.node) == len(proto.graph.node)
    assert sorted(n.SerializeToString() for n in sorted_proto.graph.node) == sorted(
        n.SerializeToString() for n in proto.graph.node
    )
    assert topologically_sorted(sorted_proto)[1] is False


@pytest.mark.parametrize(
    "build,size", [(resnet50_like, 16), (vgg_like, 32), (mobilenet_like, 32)], ids=["resnet", "vgg", "mobilenet"]
)
def test_cnn_benchmark_models_agree_at_small_batch(build: Any, size: int, tmp_path: Path) -> None:
    m = build(size=size, classes=10)
    for v in (*m.graph.input, *m.graph.output):
        v.type.tensor_type.shape.dim[0].dim_value = 2  # a batch of two images
    path = _save(m, tmp_path / "cnn.onnx")
    r = cross_check(path, seed=3)
    assert r.exit_code == 0, "\n".join(str(x.to_json()) for x in r.results)
    for x in r.results:
        c = x.comparisons["probabilities"]
        assert c.ok and c.expected_shape == (2, 10) and c.max_abs is not None and c.max_abs < 1e-5


def test_known_reference_defect_softmax_is_reported_with_figures(tmp_path: Path) -> None:
    path = _save(_single("Softmax", 11, [2, 3, 4]), tmp_path / "sm.onnx")
    r = cross_check(path)
    ref, ort = r.results
    assert ref.outcome == "KNOWN-DEVIATION" and ort.outcome == "AGREE"
    c = ref.comparisons["y"]
    assert not c.ok and c.outside > 0 and c.max_abs is not None and c.max_abs > 0.05 and c.worst
    assert "Softmax" in ref.known_defects[0].operators
    assert r.exit_code == 0
    # without a second oracle to contradict it, the reference's result stays a difference
    alone = cross_check(path, oracles=("reference",))
    assert alone.results[0].outcome == "DIFFER" and alone.exit_code == 1
    code, out, _ = call(check_main, "-q", path, "--cross-check", "reference,onnxruntime")
    assert code == 0
    assert "WARNING   EXEC-CROSSCHECK-REFERENCE" in out and "known reference defect" in out


def test_softmax_13_has_no_known_defect(tmp_path: Path) -> None:
    path = _save(_single("Softmax", 13, [2, 3, 4]), tmp_path / "sm13.onnx")
    r = cross_check(path)
    assert [x.outcome for x in r.results] == ["AGREE", "AGREE"] and not r.results[0].known_defects


def test_known_reference_defect_batchnorm_9(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), n) for n in ("s", "b", "m")]
    inits.append(numpy_helper.from_array((1 + rng.random(3)).astype(np.float32), "v"))
    m = _single("BatchNormalization", 9, [2, 3, 4, 4], tuple(inits), ("s", "b", "m", "v"))
    r = cross_check(_save(m, tmp_path / "bn9.onnx"))
    assert [x.outcome for x in r.results] == ["KNOWN-DEVIATION", "AGREE"]
    assert r.results[0].comparisons["y"].outside > 0


def test_a_wrong_oracle_result_is_a_difference_with_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    real = oracles_mod.RUNNERS["reference"]

    def skewed(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> OracleRun:
        run = real(proto, feeds)
        run.outputs = {
            k: v + np.float32(0.01) * (np.arange(v.size).reshape(v.shape) == 3) for k, v in run.outputs.items()
        }
        return run

    monkeypatch.setitem(oracles_mod.RUNNERS, "reference", skewed)
    r = cross_check(str(EX / "cnn_block.onnx"))
    ref = r.results[0]
    assert ref.outcome == "DIFFER" and r.exit_code == 1
    c = ref.comparisons["probabilities"]
    assert c.outside == 1 and c.worst[0].index == (0, 3) and abs(c.max_abs - 0.01) < 1e-6  # type: ignore[operator]
    code, out, _ = call(check_main, "-q", str(EX / "cnn_block.onnx"), "--cross-check", "reference")
    assert code == 1 and "VIOLATED  EXEC-CROSSCHECK-REFERENCE" in out and "1/10 outside" in out
    code, out, _ = call(main, "crosscheck", str(EX / "cnn_block.onnx"), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["outcome"] == "DIFFER"
    worst = doc["oracles"][0]["outputs"][0]["worst"][0]
    assert worst["index"] == [0, 3] and worst["within"] is False


def test_missing_onnxruntime_is_reported_not_crashed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    assert oracles_mod.import_onnxruntime() is None
    r = cross_check(str(EX / "cnn_block.onnx"))
    ort = r.results[1]
    assert ort.run.status == "not available" and ort.run.message == (
        "oracle onnxruntime not available: install the extra with pip install 'sonnx[crosscheck]'"
    )
    assert ort.outcome == "UNKNOWN" and r.results[0].outcome == "AGREE" and r.exit_code == 2
    code, out, err = call(main, "crosscheck", str(EX / "cnn_block.onnx"))
    assert code == 2 and "not available: install the extra with pip install 'sonnx[crosscheck]'" in out and err == ""
    code, out, _ = call(check_main, "-q", str(EX / "cnn_block.onnx"), "--cross-check", "onnxruntime")
    assert code == 2 and "UNKNOWN   EXEC-CROSSCHECK-ONNXRUNTIME" in out


def test_ir_14_is_resaved_if_and_only_if_onnxruntime_refuses_it(tmp_path: Path) -> None:
    m = onnx.load(str(EX / "cnn_block.onnx"))
    path = _save(m, tmp_path / "ir14.onnx", ir=14)
    refusal = ort_refusal(m)  # onnxruntime 1.31 refuses IR 14, 1.32 loads it: ask the installed one
    ort = cross_check(path).results[1]
    assert ort.outcome == "AGREE", ort.to_json()
    resaved = [n for n in ort.run.notes if "re-saved at IR version" in n]
    if refusal is None:
        assert resaved == []
    else:
        assert len(resaved) == 1 and "refused IR version 14" in resaved[0], (refusal, ort.run.notes)


class _RefusesAbove:
    """A stand-in onnxruntime that refuses IR versions above ``limit`` the way onnxruntime words it."""

    def __init__(self, real: Any, limit: int) -> None:
        self._real, self._limit = real, limit
        self.SessionOptions = real.SessionOptions
        self.GraphOptimizationLevel = real.GraphOptimizationLevel
        self.__version__ = real.__version__

    def InferenceSession(self, data: bytes, *args: Any, **kwargs: Any) -> Any:
        ir = onnx.load_from_string(data).ir_version
        if ir > self._limit:
            raise RuntimeError(f"Unsupported model IR version: {ir}, max supported IR version: {self._limit}")
        return self._real.InferenceSession(data, *args, **kwargs)


def test_a_refused_ir_version_is_resaved_losslessly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sonnx's own re-save path, whatever the installed onnxruntime accepts
    monkeypatch.setattr(oracles_mod, "import_onnxruntime", lambda: _RefusesAbove(peers.onnxruntime(), 13))
    m = onnx.load(str(EX / "cnn_block.onnx"))
    ort = cross_check(_save(m, tmp_path / "ir14.onnx", ir=14)).results[1]
    assert ort.outcome == "AGREE", ort.to_json()
    assert any("IR version 14" in n and "re-saved at IR version 13" in n for n in ort.run.notes)
    lower, why = lossless_ir_downgrade(m, 13)
    assert lower is not None and lower.ir_version == 13 and "lossless" in why
    lower.ir_version = m.ir_version
    assert lower.SerializeToString() == m.SerializeToString()  # nothing but the IR version changed


def test_downgrade_is_refused_when_not_lossless() -> None:
    m = _single("Relu", 17, [2])
    m.ir_version = 14
    assert lossless_ir_downgrade(m, 7)[0] is None  # opset 17 needs IR 8
    m.graph.input[0].type.tensor_type.elem_type = TensorProto.FLOAT8E4M3FN
    lower, why = lossless_ir_downgrade(m, 8)
    assert lower is None and "FLOAT8E4M3FN" in why


def test_downgrade_keeps_function_fields_above_their_ir_version() -> None:
    body = helper.make_node("Neg", ["a"], ["b"])
    f = helper.make_function("local", "F", ["a"], ["b"], [body], [helper.make_opsetid("", 17)])
    m = _single("Relu", 17, [2])
    m.ir_version = 14
    m.functions.append(f)
    m.opset_import.append(helper.make_opsetid("local", 1))
    m.functions[0].attribute_proto.append(helper.make_attribute("unused", 1.0))
    lower, why = lossless_ir_downgrade(m, 8)
    assert lower is None and "attribute defaults need IR version 9" in why
    del m.functions[0].attribute_proto[:]
    m.functions[0].value_info.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, [2]))
    lower, why = lossless_ir_downgrade(m, 9)
    assert lower is None and "value_info needs IR version 10" in why
    assert lossless_ir_downgrade(m, 10)[0] is not None


def test_an_opset_onnxruntime_refuses_is_unknown_with_its_message(tmp_path: Path) -> None:
    m = _single("Relu", 5, [2, 2])
    path = _save(m, tmp_path / "old.onnx", ir=3)
    refusal = ort_refusal(onnx.load(path))  # onnxruntime has refused opsets below 7; ask the installed one
    r = cross_check(path)
    ort = r.results[1]
    if refusal is None:
        assert ort.outcome == "AGREE" and r.exit_code == 0, ort.to_json()
    else:
        assert ort.run.status == "cannot load model" and ort.outcome == "UNKNOWN" and ort.run.message
        assert r.exit_code == 2


def test_inputs_from_npz_are_used_and_digested(tmp_path: Path) -> None:
    x = np.full((1, 3, 16, 16), 0.5, np.float32)
    npz = tmp_path / "in.npz"
    np.savez(npz, image=x)
    r = cross_check(str(EX / "cnn_block.onnx"), inputs_file=str(npz))
    assert r.exit_code == 0 and r.inputs_file == str(npz)
    assert r.inputs["image"]["shape"] == [1, 3, 16, 16]
    drawn = cross_check(str(EX / "cnn_block.onnx"), seed=0, oracles=("reference",))
    assert drawn.inputs["image"]["sha256"] != r.inputs["image"]["sha256"]
    assert cross_check(str(EX / "cnn_block.onnx"), seed=0, oracles=("reference",)).inputs == drawn.inputs


def test_executor_failure_is_unknown(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    n = helper.make_node("Mystery", ["x"], ["y"], domain="com.acme")
    m = helper.make_model(
        helper.make_graph([n], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.acme", 1)],
    )
    r = cross_check(_save(m, tmp_path / "custom.onnx"))
    assert r.subject_error and r.exit_code == 2 and r.results == []
    code, out, err = call(main, "crosscheck", str(tmp_path / "custom.onnx"))
    assert code == 2 and "numpy executor FAILED" in out and "Traceback" not in out + err


def test_tolerance_options_reach_the_comparison() -> None:
    r = cross_check(str(EX / "cnn_block.onnx"), oracles=("onnxruntime",), tolerance=Tolerance(atol=0, rtol=0, ulp=0))
    c = r.results[0].comparisons["probabilities"]
    # with a zero tolerance every differing element is outside, and any one makes the check fail
    assert c.max_abs is not None and (c.outside > 0) == (c.max_abs > 0)
    assert r.exit_code == (1 if c.outside else 0)
    zero_code = r.exit_code
    code, out, _ = call(
        main,
        "crosscheck",
        str(EX / "cnn_block.onnx"),
        "--oracles",
        "onnxruntime",
        "--atol",
        "0",
        "--rtol",
        "0",
        "--ulp",
        "0",
        "--json",
    )
    assert code == zero_code and json.loads(out)["oracles"][0]["outputs"][0]["tolerance"]["ulp"] == 0


@pytest.mark.parametrize(
    "argv,message",
    [
        (["crosscheck", "missing.onnx"], "missing.onnx"),
        (["crosscheck", "EX/cnn_block.onnx", "--oracles", "tvm"], "unknown oracle 'tvm'"),
        (["crosscheck", "EX/cnn_block.onnx", "--oracles", ","], "at least one oracle"),
        (["crosscheck", "EX/cnn_block.onnx", "--atol", "-1"], "atol"),
        (["crosscheck", "EX/cnn_block.onnx", "--inputs", "nope.npz"], "nope.npz"),
        (["check", "EX/cnn_block.onnx", "--atol", "1e-3"], "apply to --cross-check"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    code, _out, err = call(main, *[a.replace("EX/", f"{EX}/") for a in argv])
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def _shapeless_relu(tmp_path: Path) -> str:
    """A Relu model whose input declares no shape (random inputs cannot be drawn for it)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    m = helper.make_model(
        helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    return _save(m, tmp_path / "noshape.onnx")


@pytest.mark.rule("FORMAT-ONNX")
def test_an_input_without_a_shape_is_reported_not_raised(tmp_path: Path) -> None:
    path = _shapeless_relu(tmp_path)
    r = cross_check(path)
    assert r.exit_code == 2 and r.subject_error and "no inputs" in r.subject_error
    code, out, _ = call(check_main, "-q", path, "--cross-check", "reference")
    # onnx.checker requires the shape field of a main-graph input, so FORMAT-ONNX is violated (exit 1)
    assert code == 1 and "UNKNOWN   EXEC-CROSSCHECK " in out and "VIOLATED  FORMAT-ONNX" in out


def test_an_input_without_a_shape_can_be_given_in_an_npz(tmp_path: Path) -> None:
    path = _shapeless_relu(tmp_path)
    npz = tmp_path / "x.npz"
    np.savez(npz, x=np.array([-1.0, 2.0], np.float32))
    assert cross_check(path, inputs_file=str(npz)).exit_code == 0


def test_a_scalar_input_reaches_the_oracles_as_a_scalar(tmp_path: Path) -> None:
    """0-d inputs stay 0-d (np.ascontiguousarray once fed them to the oracles as shape [1])."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [])
    s = helper.make_tensor_value_info("s", TensorProto.INT64, [0])
    g = helper.make_graph([helper.make_node("Shape", ["x"], ["s"])], "g", [x], [s])
    path = _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), tmp_path / "scalar.onnx")
    r = cross_check(path)
    assert [x.outcome for x in r.results] == ["AGREE", "AGREE"], [x.to_json() for x in r.results]
