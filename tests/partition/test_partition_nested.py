"""Operations with nested graphs: captured names are inputs of the subgraph that holds the operation."""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

from sonnx.executor import random_inputs
from sonnx.loader import load_model
from sonnx.partition import Provider, check_partition, exec_verdict, make_partition
from sonnx.partition.fused import fused_verdict
from sonnx.verdict import Status


def if_model(path: Path) -> str:
    """a = relu(x); c = x > 0 reduced; y = If(c) then a + 1 else neg(a): both branches capture ``a``."""
    vi = helper.make_tensor_value_info
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=one), helper.make_node("Add", ["a", "k"], ["t"])],
        "then",
        [],
        [vi("t", TensorProto.FLOAT, [3])],
    )
    else_g = helper.make_graph([helper.make_node("Neg", ["a"], ["e"])], "else", [], [vi("e", TensorProto.FLOAT, [3])])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
        helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_g, else_branch=else_g),
    ]
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    g = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, [3])], [vi("y", TensorProto.FLOAT, [3])], [zero])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def test_captured_tensor_is_a_subgraph_input_and_everything_verifies(tmp_path: Path) -> None:
    model = load_model(if_model(tmp_path / "m.onnx"))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu"), ("", "ReduceSum")}))])
    holder = next(s for s in part.subgraphs if "y" in s.nodes)
    assert "a" in holder.inputs and holder.device == "CPU"
    # the subgraph that holds the If is a model in memory, never written to a file: the element types its
    # branches produce are not derived (spec section 4.2), so GRAPH-IF-BRANCHES stays open there, and only it
    open_ = [v for v in check_partition(model, part).verdicts if v.status is not Status.PROVED]
    assert [(v.rule_id, v.status) for v in open_] == [("PARTITION-RULES", Status.UNKNOWN)]
    assert "CPU_0: GRAPH-IF-BRANCHES" in (open_[0].reason or "") and "not read from a file" in (open_[0].reason or "")
    feeds = random_inputs(model, 3)
    assert exec_verdict(model, part, feeds, "seed 3").status is Status.TESTED
    v = fused_verdict(model, part, str(tmp_path / "fused.onnx"), feeds, "seed 3")
    assert v.status is Status.TESTED, v


def test_dropping_the_captured_input_is_caught(tmp_path: Path) -> None:
    from dataclasses import replace

    from sonnx.partition import Partition
    from sonnx.partition.verify import INPUTS

    model = load_model(if_model(tmp_path / "m.onnx"))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu"), ("", "ReduceSum")}))])
    subs = [replace(s, inputs=tuple(n for n in s.inputs if n != "a")) if "y" in s.nodes else s for s in part.subgraphs]
    v = {x.rule_id: x for x in check_partition(model, Partition(tuple(subs))).verdicts}[INPUTS]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["subgraphs"][0]["missing"] == ["a"]
