"""OP-VALUE-SHAPES: operations whose output shape depends on the values of the graph inputs are found."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.defs
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.verdict import Status, Verdict
from sonnx.loader import load_model
from sonnx.model.graph import Model, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import run_rules, value_classes
from sonnx.rules.base import PROFILE_SONNX, PROFILE_STRICT, CheckConfig
from sonnx.rules.registry import rules_for
from sonnx.rules.shape_inputs import shape_tables
from tests.common.builders import fvi, make_model
from tests.common.rulekit import data, init, run, tensors
from tests.common.rulekit import model as rk_model

ID = "OP-VALUE-SHAPES"
STRICT = CheckConfig(profile=PROFILE_STRICT)
ROOT = Path(__file__).resolve().parents[2]
I64 = TensorProto.INT64


def check(tmp_path: Path, m: onnx.ModelProto) -> Verdict:
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    return run(ID, load_model(path), STRICT)


def i64(name: str, values: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)


def node(op: str, ins: list[str], outs: list[str], **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, ins, outs, name=f"{op.lower()}_{outs[0]}", **attrs)


def listed(v: Verdict) -> list[tuple[str, str]]:
    return [(f["operation"], f["tensor"]) for f in data(v)["operations"]]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_static_network_is_proved(tmp_path: Path) -> None:
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    m = make_model([node("Conv", ["x", "w"], ["c"]), node("Relu", ["c"], ["r"]), node("Flatten", ["r"], ["y"])],
                   [fvi("x", [1, 3, 8, 8])], [fvi("y", None)], initializers=[w])
    assert check(tmp_path, m).status is Status.PROVED


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_nonzero_of_an_input_is_violated_with_its_chain(tmp_path: Path) -> None:
    m = make_model([node("Relu", ["x"], ["r"]), node("NonZero", ["r"], ["y"])], [fvi("x", [4])],
                   [fvi("y", None, I64)])
    v = check(tmp_path, m)
    assert v.status is Status.VIOLATED
    (f,) = data(v)["operations"]
    assert f["operation"] == "NonZero:nonzero_y" and f["tensor"] == "r" and f["chain"] == ["r", "x"]
    assert "NonZero:nonzero_y" in v.witness.summary  # type: ignore[union-attr]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_reshape_fed_by_a_computed_value_is_violated(tmp_path: Path) -> None:
    m = make_model([node("Add", ["n", "one"], ["s"]), node("Reshape", ["x", "s"], ["y"])],
                   [fvi("x", [2, 3]), fvi("n", [2], I64)], [fvi("y", None)], initializers=[i64("one", [0, 0])])
    v = check(tmp_path, m)
    assert v.status is Status.VIOLATED
    assert listed(v) == [("Reshape:reshape_y", "s")]
    assert data(v)["operations"][0]["chain"] == ["s", "n"]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_reshape_fed_by_shape_gather_concat_is_shape_only(tmp_path: Path) -> None:
    nodes = [node("Shape", ["x"], ["sh"]), node("Gather", ["sh", "zero"], ["d0"], axis=0),
             node("Concat", ["d0", "minus1"], ["s"], axis=0), node("Reshape", ["x", "s"], ["y"])]
    m = make_model(nodes, [fvi("x", ["N", 3, 4])], [fvi("y", None)],
                   initializers=[i64("zero", [0]), i64("minus1", [-1])])
    v = check(tmp_path, m)
    assert v.status is Status.PROVED, v


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_shape_of_a_value_dependent_shape_is_value_dependent(tmp_path: Path) -> None:
    nodes = [node("NonZero", ["c"], ["nz"]), node("Shape", ["nz"], ["s"]), node("Reshape", ["s", "s"], ["y"])]
    m = make_model(nodes, [fvi("c", [4])], [fvi("y", None, I64)])
    v = check(tmp_path, m)
    assert listed(v) == [("NonZero:nonzero_nz", "c"), ("Reshape:reshape_y", "s")]
    assert data(v)["operations"][1]["chain"] == ["s", "nz", "c"]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_nonzero_of_stored_values_is_constant(tmp_path: Path) -> None:
    nodes = [node("NonZero", ["k"], ["nz"]), node("Cast", ["nz"], ["f"], to=TensorProto.FLOAT),
             node("Mul", ["x", "f"], ["y"])]
    m = make_model(nodes, [fvi("x", [1, 2])], [fvi("y", None)], initializers=[i64("k", [1, 0, 2])])
    assert check(tmp_path, m).status is Status.PROVED


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_random_draw_is_value_dependent(tmp_path: Path) -> None:
    nodes = [node("RandomUniform", [], ["u"], shape=[2], high=4.0), node("Cast", ["u"], ["s"], to=I64),
             node("Reshape", ["x", "s"], ["y"])]
    v = check(tmp_path, make_model(nodes, [fvi("x", [2, 2])], [fvi("y", None)]))
    assert v.status is Status.VIOLATED
    assert data(v)["operations"][0]["chain"][-1] == "<random draw of RandomUniform:randomuniform_u>"


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_the_positions_follow_the_operator_version(tmp_path: Path) -> None:
    # TopK took k as an attribute before opset 10; from 10 on, K is an input that fixes the output shape.
    m1 = make_model([node("TopK", ["x"], ["v", "i"], k=2)], [fvi("x", [4])], [fvi("v", None)], opsets=[("", 9)])
    assert check(tmp_path, m1).status is Status.PROVED
    m2 = make_model([node("TopK", ["x", "k"], ["v", "i"])], [fvi("x", [4]), fvi("k", [1], I64)], [fvi("v", None)],
                    opsets=[("", 11)])
    assert listed(check(tmp_path, m2)) == [("TopK:topk_v", "k")]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_resize_reads_scales_at_position_1_before_opset_11_and_roi_fixes_no_shape(tmp_path: Path) -> None:
    scales = numpy_helper.from_array(np.asarray([1.0, 2.0], np.float32), "sc")
    m10 = make_model([node("Resize", ["x", "s"], ["y"])], [fvi("x", [2, 2]), fvi("s", [2])], [fvi("y", None)],
                     opsets=[("", 10)])
    assert listed(check(tmp_path, m10)) == [("Resize:resize_y", "s")]
    m13 = make_model([node("Resize", ["x", "roi", "sc"], ["y"])], [fvi("x", [2, 2]), fvi("roi", [4])],
                     [fvi("y", None)], initializers=[scales], opsets=[("", 13)])
    assert check(tmp_path, m13).status is Status.PROVED


def loop_model(trip_from_input: bool, stop_from_input: bool = False) -> onnx.ModelProto:
    stop = (node("ReduceSum", ["x"], ["total"]), node("Less", ["total", "limit"], ["cout"])) if stop_from_input \
        else (node("Identity", ["cin"], ["cout"]),)
    body = helper.make_graph(
        [*stop, node("Add", ["acc", "x"], ["acc2"]), node("Identity", ["acc2"], ["sc"])],
        "body", [fvi("it", [], I64), fvi("cin", [], TensorProto.BOOL), fvi("acc", [2])],
        [fvi("cout", [], TensorProto.BOOL), fvi("acc2", [2]), fvi("sc", [2])])
    loop = node("Loop", ["m", "", "a0"], ["acc_final", "scans"], body=body)
    inputs = [fvi("x", [2]), fvi("a0", [2])] + ([fvi("m", [], I64)] if trip_from_input else [])
    inits = [] if trip_from_input else [numpy_helper.from_array(np.asarray(3, np.int64), "m")]
    inits.append(numpy_helper.from_array(np.asarray(5.0, np.float32), "limit"))
    return make_model([loop], inputs, [fvi("acc_final", [2]), fvi("scans", None)], initializers=inits)


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_loop_with_a_stored_trip_count_is_proved(tmp_path: Path) -> None:
    assert check(tmp_path, loop_model(False)).status is Status.PROVED


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_loop_whose_trip_count_is_an_input_is_violated(tmp_path: Path) -> None:
    v = check(tmp_path, loop_model(True))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["operations"]
    assert f["operation"].startswith("Loop:") and f["tensor"] == "m" and "iterations" in f["cause"]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_loop_whose_body_condition_reads_an_input_is_violated(tmp_path: Path) -> None:
    v = check(tmp_path, loop_model(False, stop_from_input=True))
    (f,) = data(v)["operations"]
    assert f["tensor"] == "cout" and f["chain"] == ["cout", "total", "x"]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_nonzero_inside_a_branch_is_found_through_a_capture(tmp_path: Path) -> None:
    then = helper.make_graph([node("NonZero", ["x"], ["t"])], "then", [], [fvi("t", None, I64)])
    other = helper.make_graph([node("NonZero", ["k"], ["e"])], "else", [], [fvi("e", None, I64)])
    m = make_model([node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
                   [fvi("x", [3]), fvi("c", [], TensorProto.BOOL)], [fvi("y", None, I64)],
                   initializers=[i64("k", [1, 0, 1])])
    v = check(tmp_path, m)
    assert listed(v) == [("NonZero:nonzero_t", "x")]
    assert data(v)["operations"][0]["scope"].endswith(".then_branch")


def if_model(else_op: onnx.NodeProto, x_shape: list[Any], declared: list[Any] | None) -> onnx.ModelProto:
    """An If on a condition computed from ``x``; the branches' outputs declare no shape (it is not enforced)."""
    then = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [], [fvi("t", declared)])
    other = helper.make_graph([else_op], "else", [], [fvi("e", declared)])
    nodes = [node("ReduceSum", ["x"], ["total"], keepdims=0), node("Greater", ["total", "zero"], ["c"]),
             node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    zero = numpy_helper.from_array(np.asarray(0.0, np.float32), "zero")
    return make_model(nodes, [fvi("x", x_shape)], [fvi("y", None)], initializers=[zero])


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_an_if_whose_branches_give_one_static_shape_is_proved(tmp_path: Path) -> None:
    assert check(tmp_path, if_model(node("Neg", ["x"], ["e"]), [3], None)).status is Status.PROVED


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_an_if_whose_branches_give_two_shapes_is_violated(tmp_path: Path) -> None:
    v = check(tmp_path, if_model(node("Concat", ["x", "x"], ["e"], axis=0), [3], None))
    (f,) = data(v)["operations"]
    assert f["operation"] == "If:if_y" and "[3] and [6]" in f["cause"] and f["chain"] == ["c", "total", "x"]


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_an_if_whose_branch_shapes_are_not_static_is_unknown(tmp_path: Path) -> None:
    v = check(tmp_path, if_model(node("Neg", ["x"], ["e"]), ["N"], None))
    assert v.status is Status.UNKNOWN and "If whose condition is value-dependent" in (v.reason or "")


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_an_operator_missing_from_the_table_is_unknown(tmp_path: Path) -> None:
    m = make_model([helper.make_node("Mystery", ["x"], ["y"], domain="example.custom")], [fvi("x", [3])],
                   [fvi("y", [3])], opsets=[("", 17), ("example.custom", 1)])
    v = check(tmp_path, m)
    assert v.status is Status.UNKNOWN and "example.custom.Mystery" in (v.reason or "")


def test_the_table_covers_every_onnx_operator_but_two() -> None:
    onnx_ops = {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""}
    t = shape_tables()[""]
    covered = set(t.value_shaped) | t.shape_only | t.nested
    assert covered <= onnx_ops
    assert onnx_ops - covered <= {"CausalConvWithState", "LinearAttention"}


def test_the_rule_belongs_to_the_strict_profile_only() -> None:
    assert ID in {r.id for r in rules_for(PROFILE_STRICT)}
    assert ID not in {r.id for r in rules_for(PROFILE_SONNX)}


REAL_EXPECTED = {
    "loop_tripcount.torchscript.onnx": Status.VIOLATED,
    "mlp_qoperator.ort.onnx": Status.UNKNOWN,  # com.microsoft operators are not in the table
}


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_every_real_model(tmp_path: Path) -> None:
    manifest = json.loads((ROOT / "tests/data/real/manifest.json").read_text(encoding="utf-8"))
    got = {}
    for entry in manifest["models"]:
        v = run(ID, load_model(ROOT / "tests/data/real" / entry["file"]), STRICT)
        got[entry["file"]] = v.status
    expected = {f: REAL_EXPECTED.get(f, Status.PROVED) for f in got}
    assert got == expected


def _deep_ifs(depth: int) -> Model:
    """``depth`` Ifs nested in their then-branches, on a stored condition, with a NonZero of an input at the bottom."""
    inner = make_graph(f"l{depth}", [], [f"o{depth}"], [op("NonZero", ["x"], [f"o{depth}"], name="deepest")])
    for k in range(depth - 1, 0, -1):
        other = make_graph(f"e{k}", [], [f"e{k}"], [op("Neg", ["x"], [f"e{k}"], name=f"neg{k}")])
        inner = make_graph(f"l{k}", [], [f"o{k}"], [op("If", ["c"], [f"o{k}"], name=f"if{k}", then_branch=inner,
                                                       else_branch=other)])
    return rk_model(make_graph("main", ["x"], ["o1"], inner.operations, tensors(init("c", True, 9))))


@pytest.mark.rule("OP-VALUE-SHAPES")
def test_a_nonzero_a_thousand_ifs_deep_is_found_without_recursion() -> None:
    m = _deep_ifs(1000)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        v = run(ID, m, STRICT)
    finally:
        sys.setrecursionlimit(limit)
    (f,) = data(v)["operations"]
    assert f["operation"] == "NonZero:deepest" and f["chain"] == ["x"]
    assert f["scope"].startswith("main/(987 levels)/If:if988.then_branch")


def _nested_loops(depth: int) -> Model:
    """Loops nested ``depth`` deep, each carrying one value through its body."""
    body = make_graph("b0", ["i0", "c0", "v0"], ["c0", "w0"], [op("Relu", ["v0"], ["w0"])])
    for k in range(1, depth):
        body = make_graph(f"b{k}", [f"i{k}", f"c{k}", f"v{k}"], [f"c{k}", f"w{k}"],
                          [op("Loop", ["n", "", f"v{k}"], [f"w{k}"], name=f"loop{k}", body=body)])
    main = op("Loop", ["n", "", "x"], ["y"], name="outer", body=body)
    return rk_model(make_graph("main", ["x"], ["y"], [main], tensors(init("n", 2, 7))))


def test_loops_nested_past_the_visit_bound_are_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(ID, _nested_loops(3), STRICT).status is Status.PROVED
    monkeypatch.setattr(value_classes, "EXTRA_VISITS", 1000)  # each level doubles the visits: 4,095 for 12 levels
    assert run(ID, _nested_loops(8), STRICT).status is Status.PROVED
    (v,) = [v for v in run_rules(_nested_loops(12), STRICT) if v.rule_id == ID]
    assert v.status is Status.UNKNOWN and "operations (loops nested in loops)" in (v.reason or "")
