"""Tolerances in quantization steps (``--quant-steps``): derivation, comparison, command line.

The end-to-end case reproduces what quantized exports show against
onnxruntime: two runtimes sum the same floats in different orders, the sums
differ in their last bits, and QuantizeLinear rounds them to neighbouring
integers; after DequantizeLinear the outputs are one whole scale apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import UsageError
from sonnx.cli import check_main, main
from sonnx.differential.metrics import Tolerance, compare_arrays
from sonnx.differential.quant import StepTolerance, step_tolerances
from sonnx.execution.executor import execute
from sonnx.loader import load_model
from tests.common.builders import shifted_qdq
from tests.common.cli import call

N = 4096


def _model(nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto], out: str = "y",
           out_type: int = TensorProto.FLOAT, shape: list[int] | None = None, opset: int = 13) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info(out, out_type, shape)
    g = helper.make_graph(nodes, "q", [x], [y], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _steps(tmp_path: Path, m: onnx.ModelProto, steps: int = 1) -> dict[str, StepTolerance]:
    onnx.save(m, str(tmp_path / "m.onnx"))
    return step_tolerances(load_model(str(tmp_path / "m.onnx")), steps)


def _init(name: str, value: Any, dtype: Any) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


QDQ = [
    helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
    helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dequant"),
]
PER_TENSOR = [_init("s", 0.25, np.float32), _init("z", 0, np.uint8)]


def test_a_per_tensor_initializer_scale_gives_n_times_the_scale(tmp_path: Path) -> None:
    got = _steps(tmp_path, _model(QDQ, PER_TENSOR), steps=3)
    assert got == {"y": StepTolerance(3, (0.25,), None, False, "DequantizeLinear:dequant")}
    assert got["y"].describe() == "3 steps of 0.25 (DequantizeLinear:dequant)"


def test_a_constant_scale_and_shape_only_operations_between(tmp_path: Path) -> None:
    const = helper.make_node("Constant", [], ["s"], value=_init("v", 0.5, np.float32))
    nodes = [
        const,
        QDQ[0],
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="dequant"),
        helper.make_node("Flatten", ["d"], ["f"]),
        helper.make_node("Identity", ["f"], ["y"]),
    ]
    assert _steps(tmp_path, _model(nodes, [_init("z", 0, np.uint8)]))["y"].scale == (0.5,)


def test_a_per_axis_scale_keeps_its_axis_and_is_broadcast(tmp_path: Path) -> None:
    inits = [_init("s", [0.1, 1.0, 10.0], np.float32), _init("z", [0, 0, 0], np.uint8)]
    nodes = [helper.make_node(op, i, o, axis=1) for op, i, o in (("QuantizeLinear", ["x", "s", "z"], ["q"]),
                                                                  ("DequantizeLinear", ["q", "s", "z"], ["y"]))]
    st = _steps(tmp_path, _model(nodes, inits), steps=2)["y"]
    assert (st.axis, st.steps) == (1, 2)
    bound = st.bound((2, 3))
    assert bound is not None and np.allclose(bound, [[0.2, 2.0, 20.0], [0.2, 2.0, 20.0]])
    assert st.bound((3, 2)) is None  # three channels do not fit an axis of 2


def test_a_per_axis_scale_loses_its_step_through_a_reshape(tmp_path: Path) -> None:
    inits = [_init("s", [0.1, 1.0, 10.0], np.float32), _init("z", [0, 0, 0], np.uint8), _init("shape", [6], np.int64)]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], axis=1),
        helper.make_node("Reshape", ["d", "shape"], ["y"]),
    ]
    assert _steps(tmp_path, _model(nodes, inits)) == {}


def test_a_quantizelinear_output_gets_integer_steps(tmp_path: Path) -> None:
    m = _model([QDQ[0], helper.make_node("Identity", ["q"], ["y"])], PER_TENSOR, out_type=TensorProto.UINT8)
    assert _steps(tmp_path, m, steps=2) == {"y": StepTolerance(2, (1.0,), None, True, "QuantizeLinear:quant")}


@pytest.mark.parametrize(
    "nodes,inits",
    [
        ([QDQ[0], helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]), helper.make_node("Relu", ["d"], ["y"])],
         PER_TENSOR),
        ([helper.make_node("Relu", ["x"], ["y"])], []),
        ([helper.make_node("Abs", ["x"], ["s"]), helper.make_node("ReduceMax", ["s"], ["m"], keepdims=0),
          helper.make_node("QuantizeLinear", ["x", "m", "z"], ["q"]),
          helper.make_node("DequantizeLinear", ["q", "m", "z"], ["y"])], [_init("z", 0, np.uint8)]),
    ],
    ids=["a-relu-after-dequantize", "no-quantizing-writer", "a-scale-computed-at-run-time"],
)
def test_outputs_without_a_stated_step_keep_the_float_tolerance(
    tmp_path: Path, nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto]
) -> None:
    assert _steps(tmp_path, _model(nodes, inits)) == {}


def test_blocked_quantization_gives_no_step(tmp_path: Path) -> None:
    # six elements in two blocks of three: a one-dimensional scale that is not one step per channel
    inits = [_init("s", [0.1, 0.2], np.float32), _init("z", [0, 0], np.uint8)]
    nodes = [helper.make_node(op, i, o, axis=0, block_size=3) for op, i, o in (
        ("QuantizeLinear", ["x", "s", "z"], ["q"]), ("DequantizeLinear", ["q", "s", "z"], ["y"]))]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])
    m = helper.make_model(helper.make_graph(nodes, "b", [x], [y], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    assert _steps(tmp_path, m) == {}


@pytest.mark.parametrize("axis", [0, -3])
def test_a_per_channel_bound_follows_its_axis_not_the_last_one(axis: int) -> None:
    bound = StepTolerance(1, (0.5, 2.0), axis, False, "d").bound((2, 3, 4))
    assert bound is not None and bound.shape == (2, 3, 4)
    assert (bound[0] == 0.5).all() and (bound[1] == 2.0).all()


def test_the_comparison_accepts_n_steps_and_no_more() -> None:
    e = np.array([1.0, 2.0, 3.0], np.float32)
    one = StepTolerance(1, (0.25,), None, False, "DequantizeLinear:d")
    assert not compare_arrays(e, e + np.float32(0.25)).ok  # a step is far outside the float tolerance
    assert compare_arrays(e, e + np.float32(0.25), step=one).ok
    c = compare_arrays(e, e + np.float32(0.5), step=one)
    assert c.outside == 3 and "tolerance 1 step of 0.25" in c.summary()
    assert compare_arrays(e, e - np.float32(0.5), step=StepTolerance(2, (0.25,), None, False, "d")).ok


def test_a_per_channel_step_applies_channel_by_channel() -> None:
    e = np.zeros((2, 2), np.float32)
    st = StepTolerance(1, (0.1, 1.0), 1, False, "d")
    assert compare_arrays(e, np.array([[0.05, 0.9], [0.0, 1.0]], np.float32), step=st).ok
    c = compare_arrays(e, np.array([[0.5, 0.0], [0.0, 0.0]], np.float32), step=st)
    assert c.outside == 1 and c.worst[0].index == (0, 0)


def test_integer_steps_on_an_integer_output() -> None:
    e = np.array([10, 20, 30], np.uint8)
    st = StepTolerance(1, (1.0,), None, True, "QuantizeLinear:q")
    assert not compare_arrays(e, e + np.uint8(1)).ok  # integers are otherwise exact
    assert compare_arrays(e, e + np.uint8(1), step=st).ok and compare_arrays(e, e - np.uint8(1), step=st).ok
    assert compare_arrays(e, e + np.uint8(2), step=st).outside == 3
    assert not compare_arrays(e.astype(np.float32), e.astype(np.float32) + 1, step=st).ok  # not a float step


@pytest.mark.parametrize("value", [0, -1, 1001, True, 1.5])
def test_quant_steps_out_of_bounds_is_refused(value: Any) -> None:
    with pytest.raises(UsageError, match="--quant-steps"):
        Tolerance(quant_steps=value)


def _reduce_quantize(scale: float) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, N])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["r"], keepdims=1),
        helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q"], name="quant"),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dequant"),
    ]
    g = helper.make_graph(nodes, "rq", [x], [y], initializer=[_init("s", scale, np.float32), _init("z", 0, np.uint8)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def _reduce_sum_only() -> onnx.ModelProto:
    xi = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, N])
    ro = helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 1])
    g = helper.make_graph([helper.make_node("ReduceSum", ["x"], ["r"], keepdims=1)], "r", [xi], [ro])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def _ort(m: onnx.ModelProto, x: np.ndarray) -> float:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return float(sess.run(None, {"x": x})[0].item())


def _ours(m: onnx.ModelProto, path: Path, x: np.ndarray) -> float:
    onnx.save(m, str(path))
    return float(np.asarray(next(iter(execute(load_model(str(path)), {"x": x}).values()))).item())


@pytest.fixture(scope="module")
def one_step_apart(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, float]:
    """A ReduceSum -> QuantizeLinear -> DequantizeLinear model, an input file, and its scale.

    onnxruntime and the executor sum 4096 floats in different orders; the
    scale is chosen so that a rounding boundary of QuantizeLinear (k + 0.5
    steps) lies between the two sums as measured here, so the two runtimes
    quantize to neighbouring integers, one step apart after dequantizing.
    """
    d = tmp_path_factory.mktemp("quant")
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.random((1, N), dtype=np.float32)
        theirs, ours = _ort(_reduce_sum_only(), x), _ours(_reduce_sum_only(), d / "sum.onnx", x)
        if theirs == ours:
            continue
        scale = float(np.float32((theirs + ours) / 2 / 200.5))
        m = _reduce_quantize(scale)
        if abs(_ort(m, x) - _ours(m, d / "rq.onnx", x)) != pytest.approx(scale, rel=1e-5):
            continue
        np.savez(d / "x.npz", x=x)
        return str(d / "rq.onnx"), str(d / "x.npz"), scale
    raise AssertionError("no input of 20 puts onnxruntime's and the executor's sums on two sides of a step")


def test_one_step_apart_differs_without_the_option_and_agrees_with_it(
    one_step_apart: tuple[str, str, float],
) -> None:
    model, inputs, scale = one_step_apart
    base = ("crosscheck", "-q", model, "--inputs", inputs, "--oracles", "onnxruntime")
    code, out, _ = call(main, *base, "--json")
    (cmp,) = json.loads(out)["oracles"][0]["outputs"]
    assert code == 1 and cmp["max_abs"] == pytest.approx(scale, rel=1e-5) and cmp["tolerance"]["step"] is None
    code, out, _ = call(main, *base, "--quant-steps", "--json")
    doc = json.loads(out)
    (cmp,) = doc["oracles"][0]["outputs"]
    assert code == 0 and cmp["ok"] and cmp["tolerance"]["step"]["steps"] == 1
    assert doc["tolerance_overrides"]["quant_steps"] == 1
    assert doc["step_tolerances"] == {
        "y": {"steps": 1, "scale": [scale], "axis": None, "integer": False, "writer": "DequantizeLinear:dequant"}
    }
    code, out, _ = call(main, *base, "--quant-steps", "1")
    assert code == 0 and f"step tolerance of output y: 1 step of {scale:.6g} (DequantizeLinear:dequant)" in out


@pytest.mark.rule("GRAPH-R2")
def test_sonnx_check_takes_the_option_and_refuses_it_without_a_cross_check(
    one_step_apart: tuple[str, str, float],
) -> None:
    model, inputs, _ = one_step_apart
    argv = ("-q", model, "--inputs", inputs, "--cross-check", "onnxruntime", "--json")

    def verdict(*extra: str) -> tuple[int, dict[str, Any]]:
        code, out, _ = call(check_main, *argv, *extra)
        rule = "EXEC-CROSSCHECK-ONNXRUNTIME"
        (v,) = [v for v in json.loads(out)["models"][0]["verdicts"] if v["rule"] == rule]
        return code, v

    code, v = verdict()
    assert code == 1 and v["status"] == "VIOLATED"
    # with the step the cross-check passes; the check stays UNKNOWN (exit 2): QuantizeLinear of a computed
    # value is not proved deterministic (GRAPH-R2), which the tolerance does not touch
    code, v = verdict("--quant-steps", "1")
    assert code == 2 and v["status"] == "TESTED" and "tolerance 1 step of" in v["details"]["outputs"]["y"]
    code, _, err = call(check_main, "-q", model, "--quant-steps", "2")
    assert code == 2 and "apply to --cross-check" in err


@pytest.mark.parametrize("shift,steps,code", [(1, None, 1), (1, "1", 0), (2, "1", 1), (2, "2", 0)])
def test_equiv_takes_the_step_tolerance(tmp_path: Path, shift: int, steps: str | None, code: int) -> None:
    onnx.save(shifted_qdq(0), str(tmp_path / "a.onnx"))
    onnx.save(shifted_qdq(shift), str(tmp_path / "b.onnx"))
    extra = () if steps is None else ("--quant-steps", steps)
    got, out, _ = call(main, "equiv", "-q", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--json", *extra)
    assert got == code, out
    if steps is not None:
        (normal,) = [s for s in json.loads(out)["numeric"] if s["set"] == "normal"]
        step = normal["outputs"]["y"]["tolerance"]["step"]
        assert step == StepTolerance(int(steps), (0.25,), None, False, "DequantizeLinear:dq").to_json()
