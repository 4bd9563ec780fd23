"""Operations with nested graphs: captured names are inputs of the subgraph that holds the operation."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status
from sonnx.execution.inputs import random_inputs
from sonnx.loader import load_model
from sonnx.partition import Provider, check_partition, exec_verdict, make_partition
from sonnx.partition.fused import fused_verdict


def if_model(path: Path, cast_then: bool = False, declare_a: bool = True) -> str:
    """a = relu(x); c = x > 0 reduced; y = If(c) then a + 1 else neg(a): both branches capture ``a``.

    ``cast_then``: the then branch computes INT64 (a + 1 cast) under its FLOAT declaration. ``declare_a``: the file
    declares ``a`` (FLOAT [3]), the type the subgraph that captures it declares for its input ``a``."""
    vi = helper.make_tensor_value_info
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    then_nodes = [helper.make_node("Constant", [], ["k"], value=one), helper.make_node("Add", ["a", "k"], ["t"])]
    if cast_then:
        cast = [helper.make_node("Add", ["a", "k"], ["u"]), helper.make_node("Cast", ["u"], ["t"], to=7)]
        then_nodes = [then_nodes[0], *cast]
    then_g = helper.make_graph(then_nodes, "then", [], [vi("t", TensorProto.FLOAT, [3])])
    else_g = helper.make_graph([helper.make_node("Neg", ["a"], ["e"])], "else", [], [vi("e", TensorProto.FLOAT, [3])])
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
        helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_g, else_branch=else_g),
    ]
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    declared = [vi("a", TensorProto.FLOAT, [3])] if declare_a else []
    g = helper.make_graph(
        nodes, "g", [vi("x", TensorProto.FLOAT, [3])], [vi("y", TensorProto.FLOAT, [3])], [zero], value_info=declared
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def test_captured_tensor_is_a_subgraph_input_and_everything_verifies(tmp_path: Path) -> None:
    model = load_model(if_model(tmp_path / "m.onnx"))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu"), ("", "ReduceSum")}))])
    holder = next(s for s in part.subgraphs if "y" in s.nodes)
    assert "a" in holder.inputs and holder.device == "CPU"
    # the subgraph that holds the If is never a file of its own: its branches' types are derived from the bytes it
    # is written as (spec section 9.4), so every rule is established there too
    assert check_partition(model, part).exit_code == 0
    feeds = random_inputs(model, 3)
    assert exec_verdict(model, part, feeds, "seed 3").status is Status.TESTED
    v = fused_verdict(model, part, str(tmp_path / "fused.onnx"), feeds, "seed 3")
    assert v.status is Status.TESTED, v


def test_a_captured_input_without_a_declaration_takes_the_type_the_parent_derives(tmp_path: Path) -> None:
    # the subgraph's input ``a`` is fed by the parent: its type is what onnx derives for the parent from the facts
    # that hold at run time (relu of the declared input x), not a declaration, so the branches are established
    model = load_model(if_model(tmp_path / "m.onnx", declare_a=False))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu"), ("", "ReduceSum")}))])
    report = check_partition(model, part)
    assert report.exit_code == 0, report.text()


@pytest.mark.rule("GRAPH-ATTRIBUTES")
def test_a_boundary_declaration_of_the_parent_is_not_a_fact_of_the_subgraph(tmp_path: Path) -> None:
    # the parent's value_info says ``a`` has rank 3, which would put Flatten's axis 2 inside its range; the value
    # the parent computes has rank 1 (relu of x [3]), where axis 2 is outside it: the subgraph taken alone must be
    # judged on the derived rank, not on the declaration (spec 9.4)
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"), helper.make_node("Flatten", ["a"], ["y"], axis=2)]
    g = helper.make_graph(
        nodes, "g", [vi("x", TensorProto.FLOAT, [3])], [vi("y", TensorProto.FLOAT, None)],
        value_info=[vi("a", TensorProto.FLOAT, [3, 1, 1])],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = tmp_path / "lie.onnx"
    onnx.save(m, str(path))
    model = load_model(str(path))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu")}))])
    v = {x.rule_id: x for x in check_partition(model, part).verdicts}["PARTITION-RULES"]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert "GRAPH-ATTRIBUTES" in v.witness.summary, v.witness.summary


@pytest.mark.rule("GRAPH-IF-BRANCHES")
def test_branches_that_disagree_in_a_subgraph_are_a_violation(tmp_path: Path) -> None:
    from sonnx.partition.verify import RULES

    model = load_model(if_model(tmp_path / "m.onnx", cast_then=True))
    part = make_partition(model, [Provider("NPU", frozenset({("", "Relu"), ("", "ReduceSum")}))])
    v = {x.rule_id: x for x in check_partition(model, part).verdicts}[RULES]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert "GRAPH-IF-BRANCHES" in v.witness.summary


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
