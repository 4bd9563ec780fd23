"""A PROVED rests only on facts that hold at run time (spec: "What a PROVED rests on").

Adversarial models whose declarations lie: an intermediate ``value_info`` or
an initializer's ``value_info`` that gives other dimensions or another element
type than the value the runtimes compute. GRAPH-R2 reads the data's
dimensions of a scatter with negative indices and the target type of a
``CastLike``; both engines must read them from what holds at run time (the
main graph's inputs as onnxruntime enforces them, initial values, ``Constant``
values), never from such a declaration. Each model goes through the loader
from a file, as a user's would.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from sonnx.base.verdict import Status, Verdict
from sonnx.loader import load_model
from sonnx.model.graph import Model
from sonnx.rules.premises import runtime_type
from sonnx.smt.engine import run_smt
from tests.common.peers import onnxruntime, ort_refusal
from tests.common.rulekit import run

ID = "GRAPH-R2"
vi = helper.make_tensor_value_info


def _proto(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], value_info: list[onnx.ValueInfoProto],
           initializers: list[onnx.TensorProto], opset: int = 18) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, [vi("y", TensorProto.FLOAT, None)], initializers, value_info=value_info)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 12 if opset >= 24 else 10  # opset 24's FLOAT8E8M0 is defined from IR version 12 (reading A14)
    return m


def _load(proto: onnx.ModelProto, tmp_path: Path) -> Model:
    path = tmp_path / "m.onnx"
    onnx.save(proto, path)
    return load_model(path)


def _both(m: Model) -> tuple[Verdict, Verdict]:
    direct = run(ID, m)
    smt = {v.rule_id: v for v in run_smt(m).verdicts}[ID]
    assert direct.status is smt.status, (direct, smt)
    return direct, smt


INDICES = numpy_helper.from_array(np.array([[-1], [1]], np.int64), "i")
UPDATES = numpy_helper.from_array(np.array([[10.0] * 3, [20.0] * 3], np.float32), "u")
SCATTER = helper.make_node("ScatterND", ["t", "i", "u"], ["y"], name="s")


def _scatter_on_computed_data() -> onnx.ModelProto:
    # t has 2 rows at run time (x is fed with 2 rows: N is any size), so -1 is row 1, written twice; the value_info
    # of t says 3 rows, where -1 would be row 2
    copy = helper.make_node("Identity", ["x"], ["t"], name="copy")
    return _proto([copy, SCATTER], [vi("x", TensorProto.FLOAT, ["N", 3])], [vi("t", TensorProto.FLOAT, [3, 3])],
                  [INDICES, UPDATES])


@pytest.mark.rule("GRAPH-R2")
def test_scatter_dims_of_a_computed_tensor_are_not_read_from_its_value_info(tmp_path: Path) -> None:
    direct, _smt = _both(_load(_scatter_on_computed_data(), tmp_path))
    assert direct.status is Status.UNKNOWN, direct
    assert "'t' is computed by" in (direct.reason or "") and "enforced by no runtime" in (direct.reason or "")


def test_onnxruntime_runs_the_lying_scatter_on_two_rows() -> None:
    # the peer is asked: it ignores t's value_info and writes row 1 twice, so a PROVED there would be false
    proto = _scatter_on_computed_data()
    if ort_refusal(proto) is not None:
        pytest.fail(f"onnxruntime now refuses the model: {ort_refusal(proto)}; revisit spec 9.4's table")
    ort = onnxruntime()
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.zeros((2, 3), np.float32)})
    assert y.shape == (2, 3) and y[1, 0] in (10.0, 20.0) and y[0, 0] == 0.0


@pytest.mark.rule("GRAPH-R2")
def test_scatter_dims_of_an_initializer_are_its_values_not_its_value_info(tmp_path: Path) -> None:
    # the initializer has 2 rows; a value_info entry claims 3: -1 is row 1, a duplicate of the second index
    data = numpy_helper.from_array(np.zeros((2, 3), np.float32), "t")
    proto = _proto([SCATTER], [], [vi("t", TensorProto.FLOAT, [3, 3])], [data, INDICES, UPDATES])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.VIOLATED, direct


@pytest.mark.rule("GRAPH-R2")
def test_scatter_dims_of_a_constant_are_its_values_not_its_value_info(tmp_path: Path) -> None:
    value = numpy_helper.from_array(np.zeros((2, 3), np.float32), "v")
    const = helper.make_node("Constant", [], ["t"], name="c", value=value)
    proto = _proto([const, SCATTER], [], [vi("t", TensorProto.FLOAT, [3, 3])], [INDICES, UPDATES])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.VIOLATED, direct


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(("dims", "expected"), [([2, 3], Status.VIOLATED), ([3, 3], Status.PROVED)])
def test_scatter_dims_of_a_main_graph_input_are_its_fixed_declared_ones(
    tmp_path: Path, dims: list[int], expected: Status
) -> None:
    # onnxruntime refuses a call whose input contradicts a fixed declared size, so these dimensions hold
    proto = _proto([SCATTER], [vi("t", TensorProto.FLOAT, dims)], [], [INDICES, UPDATES])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is expected, direct


@pytest.mark.rule("GRAPH-R2")
def test_scatter_dims_of_a_nested_graph_input_are_not_established(tmp_path: Path) -> None:
    # a Loop body's input declares 3 rows for the loop-carried value; no runtime is known to check it
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), helper.make_node("ScatterND", ["t", "i", "u"], ["t_out"])],
        "body",
        [vi("n", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []), vi("t", TensorProto.FLOAT, [3, 3])],
        [vi("c_out", TensorProto.BOOL, []), vi("t_out", TensorProto.FLOAT, None)],
    )
    loop = helper.make_node("Loop", ["", "", "x"], ["y"], name="loop", body=body)
    proto = _proto([loop], [vi("x", TensorProto.FLOAT, ["N", 3])], [], [INDICES, UPDATES])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.UNKNOWN, direct
    assert "input of a nested graph" in (direct.reason or "")


E8M0 = TensorProto.FLOAT8E8M0


def _castlike(target_nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], declared: int,
              initializers: list[onnx.TensorProto]) -> onnx.ModelProto:
    x = numpy_helper.from_array(np.array([-1.0, 2.0], np.float32), "x")
    cast = helper.make_node("CastLike", ["x", "t"], ["y"], name="cl")
    return _proto([*target_nodes, cast], inputs, [vi("t", declared, [2])], [x, *initializers], opset=24)


@pytest.mark.rule("GRAPH-R2")
def test_castlike_target_type_of_a_computed_tensor_is_not_read_from_its_value_info(tmp_path: Path) -> None:
    # t is an E8M0 tensor at run time; its value_info says FLOAT. onnxruntime refuses the model, but onnx's
    # reference evaluator runs it and casts -1 to E8M0
    copy = helper.make_node("Identity", ["z"], ["t"], name="copy")
    proto = _castlike([copy], [vi("z", E8M0, [2])], TensorProto.FLOAT, [])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.UNKNOWN, direct
    assert "CastLike's target type is not established ('t' is computed by" in (direct.reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_castlike_target_type_of_an_initializer_is_its_own(tmp_path: Path) -> None:
    target = helper.make_tensor("t", E8M0, [2], vals=b"\x7f\x7f", raw=True)
    proto = _castlike([], [], TensorProto.FLOAT, [target])
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.VIOLATED, direct


@pytest.mark.rule("GRAPH-R2")
def test_castlike_target_type_of_a_main_graph_input_is_its_declared_one(tmp_path: Path) -> None:
    # onnxruntime refuses a call whose input has another element type
    cast = helper.make_node("CastLike", ["x", "t"], ["y"], name="cl")
    x = numpy_helper.from_array(np.array([-1.0, 2.0], np.float32), "x")
    proto = _proto([cast], [vi("t", E8M0, [2])], [], [x], opset=24)
    direct, _smt = _both(_load(proto, tmp_path))
    assert direct.status is Status.VIOLATED, direct


def test_a_name_assigned_twice_has_no_established_type(tmp_path: Path) -> None:
    proto = _scatter_on_computed_data()
    m = _load(proto, tmp_path)
    ops = list(m.graph.operations)
    rt = runtime_type(m.graph, "t", True, [ops[0], ops[0]])
    assert rt.dims is None and "assigned more than once" in rt.why


def _if_with_a_lying_branch() -> onnx.ModelProto:
    # the then branch casts to INT32 and declares FLOAT; the else branch gives FLOAT
    def branch(name: str, to: int) -> onnx.GraphProto:
        cast = helper.make_node("Cast", ["x"], [f"{name}_o"], to=to)
        return helper.make_graph([cast], name, [], [vi(f"{name}_o", TensorProto.FLOAT, [2])])

    node = helper.make_node("If", ["c"], ["y"], name="if", then_branch=branch("t", TensorProto.INT32),
                            else_branch=branch("e", TensorProto.FLOAT))
    g = helper.make_graph([node], "g", [vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, [2])],
                          [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    return m


def test_the_reference_evaluator_runs_an_if_whose_branch_declares_another_type() -> None:
    feeds = {"c": np.array(True), "x": np.array([1.0, 2.0], np.float32)}
    (y,) = ReferenceEvaluator(_if_with_a_lying_branch()).run(None, feeds)
    assert np.asarray(y).dtype == np.int32


@pytest.mark.rule("GRAPH-IF-BRANCHES")
def test_if_branch_types_are_not_read_from_unenforced_declarations(tmp_path: Path) -> None:
    # both branches declare FLOAT: the types they produce (INT32 and FLOAT) are what counts
    v = run("GRAPH-IF-BRANCHES", _load(_if_with_a_lying_branch(), tmp_path))
    assert v.status is Status.VIOLATED, v
    assert "produced output types differ" in (v.witness.summary if v.witness else "")
