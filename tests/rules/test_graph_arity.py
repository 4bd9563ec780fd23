"""GRAPH-ARITY: every input and output position of an operator is bound ([R1], [T03c] of graph.md v23)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import helper

from sonnx.base.verdict import Severity, Status
from sonnx.loader import load_model
from sonnx.model.graph import Function, Graph, Model, Operation, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.rules.graph_arity import Side, _side, written_scopes
from tests.common.rulekit import data, model, run

ID = "GRAPH-ARITY"


def one(*ops: Any, opset: int = 17) -> Model:
    return model(make_graph("main", ["x", "w", "b", "lo", "hi"], ["y"], list(ops)), opset)


@pytest.mark.rule("GRAPH-ARITY")
def test_every_position_bound_is_proved() -> None:
    m = one(
        op("Conv", ["x", "w", "b"], ["c"]),
        op("MaxPool", ["c"], ["p", "idx"]),
        op("Clip", ["p", "lo", "hi"], ["y"]),
        op("Concat", ["x", "w"], ["cat"], axis=0),
    )
    v = run(ID, m)
    assert v.status is Status.PROVED and v.severity is Severity.WARNING


@pytest.mark.rule("GRAPH-ARITY")
def test_left_out_optional_output_is_named_by_position_and_formal() -> None:
    v = run(ID, one(op("MaxPool", ["x"], ["y"], name="pool")))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["operations"]
    assert f["operation"] == "MaxPool:pool" and f["scope"] == "main" and f["index"] == 0
    assert f["signature"] == "ai.onnx::MaxPool-12"
    assert f["inputs_left_out"] == [] and f["outputs_left_out"] == [{"position": 1, "formal": "Indices"}]


@pytest.mark.rule("GRAPH-ARITY")
def test_empty_name_and_short_mapping_are_both_left_out() -> None:
    # Clip's min is written as "", its max not written at all
    (f,) = data(run(ID, one(op("Clip", ["x", ""], ["y"], name="c"))))["operations"]
    assert f["inputs_left_out"] == [{"position": 1, "formal": "min"}, {"position": 2, "formal": "max"}]


@pytest.mark.rule("GRAPH-ARITY")
def test_variadic_positions() -> None:
    # every written position of a variadic formal must be bound, and its minimum arity reached
    (f,) = data(run(ID, one(op("Concat", ["x", "", "w"], ["y"], name="c", axis=0))))["operations"]
    assert f["inputs_left_out"] == [{"position": 1, "formal": "inputs[1]"}]
    (f,) = data(run(ID, one(op("Concat", [], ["y"], name="c", axis=0))))["operations"]
    assert f["inputs_left_out"] == [{"position": 0, "formal": "inputs[0]"}]
    # Loop's carried values are variadic with minimum arity 0: none is required, but M and cond are, and
    # one output at least (its outputs are variadic with minimum arity 1)
    body = make_graph("body", ["i", "c", "v"], ["c", "v"], [])
    (f,) = data(run(ID, one(op("Loop", ["", "lo"], [], name="l", body=body))))["operations"]
    assert f["inputs_left_out"] == [{"position": 0, "formal": "M"}]
    assert f["outputs_left_out"] == [{"position": 0, "formal": "v_final_and_scan_outputs[0]"}]
    assert run(ID, one(op("Loop", ["hi", "lo", "x"], ["y"], name="l", body=body))).status is Status.PROVED


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-ARITY")
def test_side_arithmetic() -> None:
    fixed = Side(("X", "B"), False, 0)
    assert fixed.required(5) == 2 and fixed.left_out(["x", "b", ""]) == []  # beyond the schema: FORMAT-ONNX's
    var = Side(("first", "rest"), True, 2)
    assert var.required(0) == 3 and var.required(5) == 5
    assert var.left_out(["a", "b"]) == [2] and var.formal(2) == "rest[1]"


@pytest.mark.rule("GRAPH-ARITY")
@pytest.mark.parametrize(
    ("op_type", "inputs", "outputs"),
    [
        ("Relu", Side(("X",), False, 0), Side(("Y",), False, 0)),
        ("Concat", Side(("inputs",), True, 1), Side(("concat_result",), False, 0)),
        ("Split", Side(("input", "split"), False, 0), Side(("outputs",), True, 1)),
    ],
)
def test_sides_read_from_onnx_schemas(op_type: str, inputs: Side, outputs: Side) -> None:
    """A schema's sides as data: the formal names, whether the last is variadic, and its minimum arity (0
    when no formal is variadic, the value the SMT encoding's raw facts carry for such a side)."""
    schema = onnx.defs.get_schema(op_type, 18)
    assert (_side(schema.inputs), _side(schema.outputs)) == (inputs, outputs)


@pytest.mark.rule("GRAPH-ARITY")
def test_signatures_are_looked_up_by_domain_and_operator() -> None:
    """Two unnamed operations ``Relu`` of different domains in one graph: the second is not given the first's
    signature (the lookup of a scope is cached by domain and operator, never by node name)."""
    m = one(op("Relu", ["x"], ["a"]), op("Relu", ["a"], ["y"], domain="com.acme"))
    v = run(ID, m)
    assert v.status is Status.UNKNOWN and "com.acme::Relu" in (v.reason or "")


@pytest.mark.rule("GRAPH-ARITY", "STRICT-BROADCAST")
def test_written_scopes_link_each_nested_graph_to_its_enclosing_scope() -> None:
    """The main graph and each function body are roots (-1); a graph nested in either names the index of the
    scope that holds it, in the function as in the main graph (STRICT-BROADCAST walks these links outwards)."""
    def holder(name: str) -> Graph:
        inner = make_graph("inner", [], ["k"], [Operation("Neg", "", "", ("a",), ("k",))])
        node = op("If", ["c"], ["b"], name="if", then_branch=inner, else_branch=inner)
        return make_graph(name, ["a", "c"], ["b"], [node])

    m = model(holder("main"), functions=(Function("local", "F", holder("F")),))
    got = [(s.path, s.parent) for s in written_scopes(m)]
    assert got == [
        ("main", -1),
        ("main/If:if.else_branch", 0),
        ("main/If:if.then_branch", 0),
        ("function local.F", -1),
        ("function local.F/If:if.else_branch", 3),
        ("function local.F/If:if.then_branch", 3),
    ]


@pytest.mark.rule("GRAPH-ARITY")
def test_nested_graph_operations_are_checked() -> None:
    then_g = make_graph("t", [], ["a"], [op("Dropout", ["x"], ["a"], name="drop")])
    else_g = make_graph("e", [], ["b"], [op("Identity", ["x"], ["b"])])
    v = run(ID, one(op("If", ["lo"], ["y"], name="s", then_branch=then_g, else_branch=else_g)))
    (f,) = data(v)["operations"]
    assert f["scope"] == "main/If:s.then_branch" and f["operation"] == "Dropout:drop"
    assert [x["formal"] for x in f["inputs_left_out"]] == ["ratio", "training_mode"]
    assert [x["formal"] for x in f["outputs_left_out"]] == ["mask"]


@pytest.mark.rule("GRAPH-ARITY")
def test_unknown_signature_is_unknown_never_proved() -> None:
    v = run(ID, one(op("Mystery", ["x"], ["y"], domain="com.acme")))
    assert v.status is Status.UNKNOWN and v.reason == (
        "operator signature not known for some operations: com.acme::Mystery: the model imports no opset "
        "version for domain 'com.acme' (1 operation(s))"
    )
    # a certain violation elsewhere wins, and counts the operations left undecided
    v = run(ID, one(op("Mystery", ["x"], ["t"], domain="com.acme"), op("MaxPool", ["t"], ["y"])))
    assert v.status is Status.VIOLATED and data(v)["unknown_count"] == 1


@pytest.mark.rule("GRAPH-ARITY")
def test_severity_follows_the_profile() -> None:
    m = one(op("MaxPool", ["x"], ["y"]))
    assert run(ID, m).severity is Severity.WARNING
    assert run(ID, m, CheckConfig(profile=PROFILE_STRICT)).severity is Severity.ERROR


# -- model-local functions: calls as the file writes them, and the bodies -----------------------------


def _save(tmp_path: Path, nodes: list[onnx.NodeProto], functions: list[onnx.FunctionProto]) -> Path:
    vi = [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2]) for n in ("x", "y")]
    g = helper.make_graph(nodes, "main", vi[:1], vi[1:])
    m = helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], functions=functions
    )
    m.ir_version = 10
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    return path


def _pair() -> onnx.FunctionProto:
    """local.Pair(a) -> (s, t): two outputs, no optional formal (a function's formals are all required)."""
    body = [helper.make_node("Relu", ["a"], ["s"]), helper.make_node("Neg", ["a"], ["t"])]
    return helper.make_function("local", "Pair", ["a"], ["s", "t"], body, [helper.make_opsetid("", 17)])


@pytest.mark.rule("GRAPH-ARITY")
def test_call_leaving_out_a_function_output(tmp_path: Path) -> None:
    path = _save(tmp_path, [helper.make_node("Pair", ["x"], ["y"], name="call", domain="local")], [_pair()])
    m = load_model(path)
    # inlining gave the omitted output a fresh name: only the written graph still shows it left out
    assert all(o for op_ in m.graph.operations for o in op_.output_mapping)
    (f,) = data(run(ID, m))["operations"]
    assert f["operation"] == "Pair:call" and f["scope"] == "main" and f["signature"] == "function local.Pair"
    assert f["outputs_left_out"] == [{"position": 1, "formal": "t"}]


@pytest.mark.rule("GRAPH-ARITY")
def test_function_bodies_are_checked_once(tmp_path: Path) -> None:
    body = [helper.make_node("MaxPool", ["a"], ["o"], name="inner", kernel_shape=[1])]
    fn = helper.make_function("local", "Pool", ["a"], ["o"], body, [helper.make_opsetid("", 17)])
    calls = [helper.make_node("Pool", [a], [b], domain="local") for a, b in (("x", "t"), ("t", "y"))]
    v = run(ID, load_model(_save(tmp_path, calls, [fn])))
    # two calls, one body: the body's MaxPool is reported where it is written, once
    (f,) = data(v)["operations"]
    assert f["scope"] == "function local.Pool" and f["operation"] == "MaxPool:inner"


@pytest.mark.rule("GRAPH-ARITY")
def test_overloads_with_different_signatures_are_unknown(tmp_path: Path) -> None:
    one_out = helper.make_function("local", "Pair", ["a"], ["s"], [helper.make_node("Relu", ["a"], ["s"])],
                                   [helper.make_opsetid("", 17)])
    two_out = _pair()
    one_out.overload, two_out.overload = "one", "two"
    call = helper.make_node("Pair", ["x"], ["y"], domain="local")
    call.overload = "one"
    v = run(ID, load_model(_save(tmp_path, [call], [one_out, two_out])))
    assert v.status is Status.UNKNOWN and "overloads" in (v.reason or "")


@pytest.mark.rule("GRAPH-ARITY")
@pytest.mark.parametrize("profile", ["sonnx", "sonnx-strict"])
def test_registry_gives_the_profile_severity(profile: str) -> None:
    from sonnx.rules import run_rules

    (v,) = [x for x in run_rules(one(op("MaxPool", ["x"], ["y"])), CheckConfig(profile=profile)) if x.rule_id == ID]
    assert v.status is Status.VIOLATED
    assert v.severity is (Severity.ERROR if profile == PROFILE_STRICT else Severity.WARNING)



@pytest.mark.rule("GRAPH-ARITY")
@given(
    st.lists(st.sampled_from(["", "t"]), max_size=6),
    st.integers(0, 3),
    st.booleans(),
    st.integers(0, 2),
)
def test_fast_completeness_test_agrees_with_the_positions_left_out(mapping: list[str], fixed: int, variadic: bool,
                                                                  minimum: int) -> None:
    # the check's fast path (a million operations go through it) and the witness's list must never disagree
    side = Side(tuple(f"f{k}" for k in range(fixed + variadic)), variadic, minimum if variadic else 0)
    assert side.complete(mapping) == (side.left_out(mapping) == [])
