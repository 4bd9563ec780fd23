"""Model-local functions: storage, inlining, attribute references, recursion."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import AttributeProto, TensorProto, helper
from onnx.reference import ReferenceEvaluator

from sonnx.api import run
from sonnx.base.errors import ModelFormatError, UnsupportedModelError
from sonnx.loader import REF, AttributeRef, load_model
from sonnx.model import Attribute, Graph, Operation, TensorType
from tests.common.builders import fvi, make_model

Save = Callable[..., str]
OPS = [helper.make_opsetid("", 17)]
DOMAINS = [("", 17), ("local", 1)]


def fn(name: str, inputs: Sequence[str], outputs: Sequence[str], nodes: Sequence[onnx.NodeProto],
       **kw: object) -> onnx.FunctionProto:
    return helper.make_function("local", name, list(inputs), list(outputs), list(nodes), OPS, **kw)  # type: ignore[arg-type]


def call(
    name: str, inputs: Sequence[str], outputs: Sequence[str], node_name: str = "", **attrs: object
) -> onnx.NodeProto:
    return helper.make_node(name, list(inputs), list(outputs), name=node_name, domain="local", **attrs)


def op(operator: str, inputs: Sequence[str], outputs: Sequence[str], name: str = "", domain: str = "",
       attributes: tuple[Attribute, ...] = ()) -> Operation:
    return Operation(operator, domain, name, tuple(inputs), tuple(outputs), attributes)


def test_simple_inlining_values_and_renaming(save: Save) -> None:
    f = fn("f", ["a", "b"], ["c"], [
        helper.make_node("Add", ["a", "b"], ["t"], name="n_add"),
        helper.make_node("Mul", ["t", "a"], ["c"], name="n_mul"),
    ], value_info=[fvi("t", [7])])
    nodes = [call("f", ["x", "y"], ["z"], "call1"), call("f", ["z", "y"], ["w"]),
             helper.make_node("Relu", ["w"], ["out"], name="r")]
    m = make_model(nodes, [fvi("x"), fvi("y")], [fvi("out")], functions=[f], opsets=DOMAINS, ir_version=10)
    model = load_model(save(m))
    assert model.graph.operations == (
        op("Add", ["x", "y"], ["call1/f/t"], "call1/f/n_add"),
        op("Mul", ["call1/f/t", "x"], ["z"], "call1/f/n_mul"),
        op("Add", ["z", "y"], ["w/f/t"], "w/f/n_add"),  # an unnamed call is named by its first output
        op("Mul", ["w/f/t", "z"], ["w"], "w/f/n_mul"),
        op("Relu", ["w"], ["out"], "r"),
    )
    # The function's declared internal types follow the renamed tensors.
    assert model.graph.tensors["call1/f/t"].type == TensorType("tensor", TensorProto.FLOAT, (7,))
    assert model.call_cycles == ()
    (stored,) = model.functions
    assert (stored.domain, stored.name, stored.overload) == ("local", "f", "")
    assert stored.body.inputs == ("a", "b") and stored.body.outputs == ("c",)
    assert stored.body.operations[0] == op("Add", ["a", "b"], ["t"], "n_add")
    assert dict(stored.opset_imports) == {"": 17}


def test_fresh_names_avoid_existing_ones(save: Save) -> None:
    f = fn("f", ["a"], ["c"], [helper.make_node("Neg", ["a"], ["t"]), helper.make_node("Abs", ["t"], ["c"])])
    nodes = [helper.make_node("Relu", ["x"], ["call1/f/t"]), call("f", ["call1/f/t"], ["z"], "call1")]
    model = load_model(save(make_model(nodes, [fvi("x")], [fvi("z")], functions=[f], opsets=DOMAINS)))
    assert model.graph.operations[1:] == (
        op("Neg", ["call1/f/t"], ["call1/f/t~1"]),
        op("Abs", ["call1/f/t~1"], ["z"]),
    )


def test_omitted_inputs_and_outputs(save: Save) -> None:
    f = fn("f", ["a", "b"], ["c", "d"], [
        helper.make_node("Clip", ["a", "b"], ["c"]),
        helper.make_node("Identity", ["c"], ["d"]),
    ])
    nodes = [call("f", ["x", ""], ["z"], "k")]
    model = load_model(save(make_model(nodes, [fvi("x")], [fvi("z")], functions=[f], opsets=DOMAINS)))
    assert model.graph.operations == (
        op("Clip", ["x", ""], ["z"]),
        op("Identity", ["z"], ["k/f/d"]),
    )


def test_output_that_is_an_input_passes_through(save: Save) -> None:
    f = fn("f", ["a"], ["a", "b"], [helper.make_node("Neg", ["a"], ["b"])])
    nodes = [call("f", ["x"], ["p", "q"], "k")]
    model = load_model(save(make_model(nodes, [fvi("x")], [fvi("p"), fvi("q")], functions=[f], opsets=DOMAINS)))
    assert model.graph.operations == (
        op("Neg", ["x"], ["q"]),
        op("Identity", ["x"], ["p"], "k/f/passthrough"),
    )


def test_attribute_references(save: Save) -> None:
    g = fn("g", ["x"], ["y"], [
        helper.make_node("LeakyRelu", ["x"], ["t"], name="lr"),
        helper.make_node("Custom", ["t"], ["y"], name="cu", domain="my"),
    ], attributes=["beta"], attribute_protos=[helper.make_attribute("alpha", 0.5)])
    g.node[0].attribute.append(helper.make_attribute_ref("alpha", AttributeProto.FLOAT, ref_attr_name="alpha"))
    g.node[1].attribute.append(helper.make_attribute_ref("gamma", AttributeProto.INTS, ref_attr_name="beta"))
    g.node[1].attribute.append(helper.make_attribute("fixed", 3))
    nodes = [
        call("g", ["x"], ["y1"], "c1", alpha=0.25, beta=[1, 2]),
        call("g", ["y1"], ["y2"], "c2"),
    ]
    m = make_model(nodes, [fvi("x")], [fvi("y2")], functions=[g], opsets=[*DOMAINS, ("my", 1)])
    model = load_model(save(m))
    assert model.graph.operations == (
        op("LeakyRelu", ["x"], ["c1/g/t"], "c1/g/lr", attributes=(Attribute("alpha", "FLOAT", 0.25),)),
        op("Custom", ["c1/g/t"], ["y1"], "c1/g/cu", "my",
           (Attribute("gamma", "INTS", (1, 2)), Attribute("fixed", "INT", 3))),
        op("LeakyRelu", ["y1"], ["c2/g/t"], "c2/g/lr", attributes=(Attribute("alpha", "FLOAT", 0.5),)),
        op("Custom", ["c2/g/t"], ["y2"], "c2/g/cu", "my", (Attribute("fixed", "INT", 3),)),  # beta: no default
    )
    (stored,) = model.functions
    assert stored.attribute_names == ("beta", "alpha")
    assert stored.attribute_defaults == (Attribute("alpha", "FLOAT", 0.5),)
    assert stored.body.operations[0].attributes == (Attribute("alpha", REF, AttributeRef("alpha", "FLOAT")),)


def test_nested_calls(save: Save) -> None:
    inner = fn("inner", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"], name="neg")])
    outer = fn("outer", ["x"], ["y"], [call("inner", ["x"], ["h"], "i1"), call("inner", ["h"], ["y"], "i2")])
    nodes = [call("outer", ["in"], ["out"], "c")]
    m = make_model(nodes, [fvi("in")], [fvi("out")], functions=[outer, inner], opsets=DOMAINS)
    model = load_model(save(m))
    assert model.graph.operations == (
        op("Neg", ["in"], ["c/outer/h"], "c/outer/i1/inner/neg"),
        op("Neg", ["c/outer/h"], ["out"], "c/outer/i2/inner/neg"),
    )


def test_attribute_reference_passed_through_a_nested_call(save: Save) -> None:
    inner = fn("inner", ["a"], ["b"], [helper.make_node("LeakyRelu", ["a"], ["b"])], attributes=["k"])
    inner.node[0].attribute.append(helper.make_attribute_ref("alpha", AttributeProto.FLOAT, ref_attr_name="k"))
    outer = fn("outer", ["x"], ["y"], [call("inner", ["x"], ["y"], "i")], attributes=["s"])
    outer.node[0].attribute.append(helper.make_attribute_ref("k", AttributeProto.FLOAT, ref_attr_name="s"))
    nodes = [call("outer", ["in"], ["out"], "c", s=0.75)]
    model = load_model(save(make_model(nodes, [fvi("in")], [fvi("out")], functions=[inner, outer], opsets=DOMAINS)))
    alpha = Attribute("alpha", "FLOAT", 0.75)
    assert model.graph.operations == (op("LeakyRelu", ["in"], ["out"], attributes=(alpha,)),)


def _if(name: str, cond: str, out: str, then_nodes: list[onnx.NodeProto], then_out: str) -> onnx.NodeProto:
    then = helper.make_graph(then_nodes, f"{name}_then", [], [fvi(then_out)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], [f"{name}_e"])], f"{name}_else", [],
                              [fvi(f"{name}_e")])
    return helper.make_node("If", [cond], [out], name=name, then_branch=then, else_branch=other)


def test_call_inside_if_body_of_the_main_graph(save: Save) -> None:
    f = fn("f", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["t"]), helper.make_node("Abs", ["t"], ["b"])])
    nodes = [_if("if0", "c", "y", [call("f", ["x"], ["r"], "inner_call")], "r")]
    m = make_model(nodes, [fvi("c", [], TensorProto.BOOL), fvi("x")], [fvi("y")], functions=[f], opsets=DOMAINS)
    model = load_model(save(m))
    (if_op,) = model.graph.operations
    then = if_op.attribute("then_branch")
    assert then is not None and isinstance(then.value, Graph)
    assert then.value.operations == (
        op("Neg", ["x"], ["inner_call/f/t"]),
        op("Abs", ["inner_call/f/t"], ["r"]),
    )
    assert then.value.captures == frozenset({"x"})
    assert if_op.implicit_inputs == ("x",)


def test_function_body_with_if_calling_another_function(save: Save) -> None:
    g = fn("g", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])])
    body_if = _if("fif", "cond", "out", [call("g", ["x"], ["gt"], "gcall")], "gt")
    f = fn("f", ["cond", "x"], ["out"], [body_if])
    nodes = [call("f", ["C", "X"], ["Y"], "fc")]
    m = make_model(nodes, [fvi("C", [], TensorProto.BOOL), fvi("X")], [fvi("Y")], functions=[f, g], opsets=DOMAINS)
    model = load_model(save(m))
    (if_op,) = model.graph.operations
    assert (if_op.operator, if_op.name, if_op.input_mapping, if_op.output_mapping) == ("If", "fc/f/fif", ("C",), ("Y",))
    then = if_op.attribute("then_branch")
    other = if_op.attribute("else_branch")
    assert then is not None and other is not None
    assert then.value.operations == (op("Neg", ["X"], ["fc/f/gt"], ""),)
    assert then.value.outputs == ("fc/f/gt",)
    assert other.value.operations == (op("Identity", ["X"], ["fc/f/fif_e"]),)
    assert model.graph.captures == frozenset()


def _cycles(save: Save, functions: list[onnx.FunctionProto], main_calls: list[onnx.NodeProto]) -> tuple:
    m = make_model(main_calls, [fvi("x"), fvi("c", [], TensorProto.BOOL)], [fvi("y")], functions=functions,
                   opsets=DOMAINS)
    model = load_model(save(m))
    return model.call_cycles, model.graph.operations


def test_direct_recursion(save: Save) -> None:
    f = fn("f", ["a"], ["b"], [call("f", ["a"], ["b"])])
    cycles, ops = _cycles(save, [f], [call("f", ["x"], ["y"], "k")])
    assert cycles == (("local.f", "local.f"),)
    assert ops == (op("f", ["x"], ["y"], "k", "local"),)  # left as an opaque operation


def test_indirect_recursion_and_a_caller_outside_the_cycle(save: Save) -> None:
    f = fn("f", ["a"], ["b"], [call("g", ["a"], ["b"])])
    g = fn("g", ["a"], ["b"], [call("f", ["a"], ["b"])])
    h = fn("h", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["t"]), call("f", ["t"], ["b"], "hf")])
    cycles, ops = _cycles(save, [f, g, h], [call("h", ["x"], ["y"], "k")])
    assert cycles == (("local.f", "local.g", "local.f"),)
    # h is not recursive: it is inlined, and its call of f stays opaque.
    assert ops == (op("Neg", ["x"], ["k/h/t"]), op("f", ["k/h/t"], ["y"], "k/h/hf", "local"))


def test_recursion_through_an_if_body(save: Save) -> None:
    f = fn("f", ["c", "x"], ["y"], [_if("rif", "c", "y", [call("f", ["c", "x"], ["r"])], "r")])
    cycles, _ = _cycles(save, [f], [call("f", ["c", "x"], ["y"])])
    assert cycles == (("local.f", "local.f"),)


def test_recursion_through_a_loop_body(save: Save) -> None:
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]), call("h", ["v"], ["v_out"])], "lb",
        [fvi("i", [], TensorProto.INT64), fvi("cond", [], TensorProto.BOOL), fvi("v")],
        [fvi("cond_out", [], TensorProto.BOOL), fvi("v_out")])
    g = fn("g", ["a"], ["b"], [helper.make_node("Loop", ["", "", "a"], ["b"], body=body)])
    h = fn("h", ["a"], ["b"], [call("g", ["a"], ["b"])])
    cycles, _ = _cycles(save, [g, h], [call("g", ["x"], ["y"])])
    assert cycles == (("local.g", "local.h", "local.g"),)


def test_several_cycles_are_listed_once_each_in_order(save: Save) -> None:
    a = fn("a", ["x"], ["y"], [call("b", ["x"], ["t"]), call("a", ["t"], ["y"])])
    b = fn("b", ["x"], ["y"], [call("c", ["x"], ["t"]), call("a", ["t"], ["y"])])
    c = fn("c", ["x"], ["y"], [call("b", ["x"], ["y"])])
    cycles, _ = _cycles(save, [c, b, a], [call("a", ["x"], ["y"])])
    assert cycles == (
        ("local.a", "local.a"),
        ("local.a", "local.b", "local.a"),
        ("local.b", "local.c", "local.b"),
    )


def test_overloads_select_their_own_body(save: Save) -> None:
    f1 = fn("f", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])], overload="neg")
    f2 = fn("f", ["a"], ["b"], [helper.make_node("Abs", ["a"], ["b"])], overload="abs")
    nodes = [call("f", ["x"], ["t"]), call("f", ["t"], ["y"])]
    nodes[0].overload, nodes[1].overload = "abs", "neg"
    m = make_model(nodes, [fvi("x")], [fvi("y")], functions=[f1, f2], opsets=DOMAINS, ir_version=10)
    model = load_model(save(m))
    assert model.graph.operations == (op("Abs", ["x"], ["t"]), op("Neg", ["t"], ["y"]))
    assert [f.overload for f in model.functions] == ["neg", "abs"]


def test_duplicate_function_is_rejected(save: Save) -> None:
    f = fn("f", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])])
    m = make_model([], [], [], functions=[f, f], opsets=DOMAINS)
    with pytest.raises(ModelFormatError, match="defined twice"):
        load_model(save(m))


def test_call_naming_an_unknown_overload_is_not_inlined(save: Save) -> None:
    f = fn("f", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])])
    node = call("f", ["x"], ["y"], "k")
    node.overload = "other"
    model = load_model(save(make_model([node], [fvi("x")], [fvi("y")], functions=[f], opsets=DOMAINS, ir_version=10)))
    assert model.graph.operations == (op("f", ["x"], ["y"], "k", "local"),)


def test_function_cannot_see_the_callers_names(save: Save) -> None:
    """A body name that is not a formal input is local to the function, even if the caller has one like it."""
    f = fn("f", ["a"], ["b"], [helper.make_node("Add", ["a", "secret"], ["b"])])
    nodes = [helper.make_node("Relu", ["x"], ["secret"]), call("f", ["x"], ["y"], "k")]
    m = make_model(nodes, [fvi("x")], [fvi("y")], functions=[f], opsets=DOMAINS)
    model = load_model(save(m))
    assert model.graph.operations[1] == op("Add", ["x", "k/f/secret"], ["y"])


def test_exponential_expansion_is_bounded(save: Save, monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.loader import inline

    # f_k calls f_{k+1} twice: the main call expands to 2**10 operations.
    functions = [fn(f"f{k}", ["a"], ["b"], [call(f"f{k + 1}", ["a"], ["t"]), call(f"f{k + 1}", ["t"], ["b"])])
                 for k in range(10)]
    functions.append(fn("f10", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])]))
    m = make_model([call("f0", ["x"], ["y"])], [fvi("x")], [fvi("y")], functions=functions, opsets=DOMAINS)
    path = save(m)
    assert len(load_model(path).graph.operations) == 2**10
    monkeypatch.setattr(inline, "MAX_INLINED_OPERATIONS", 1000)
    with pytest.raises(UnsupportedModelError, match=r"'local.f0' expands to 1,024 operations \(more than 1,000\)"):
        load_model(path)


def test_a_billion_inlined_calls_are_refused_from_the_counts(save: Save) -> None:
    """2**30 operations from a 2 KB file: refused from the call counts, before any expansion."""
    functions = [fn(f"f{k}", ["a"], ["b"], [call(f"f{k + 1}", ["a"], ["t"]), call(f"f{k + 1}", ["t"], ["b"])])
                 for k in range(30)]
    functions.append(fn("f30", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])]))
    m = make_model([call("f0", ["x"], ["y"])], [fvi("x")], [fvi("y")], functions=functions, opsets=DOMAINS)
    with pytest.raises(UnsupportedModelError, match=r"expands to [\d,]+ operations \(more than 10,000,000\)"):
        load_model(save(m))


def test_the_refusal_counts_exactly(save: Save, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many calls of a small function: the total is counted exactly (not the sum of the templates built)."""
    from sonnx.loader import inline

    functions = [fn("g", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["t"]), helper.make_node("Neg", ["t"], ["b"])])]
    calls = [call("g", ["x" if k == 0 else f"y{k - 1}"], [f"y{k}"]) for k in range(600)]
    m = make_model(calls, [fvi("x")], [fvi("y599")], functions=functions, opsets=DOMAINS)
    path = save(m)
    monkeypatch.setattr(inline, "MAX_INLINED_OPERATIONS", 1200)
    assert len(load_model(path).graph.operations) == 1200
    monkeypatch.setattr(inline, "MAX_INLINED_OPERATIONS", 1199)
    with pytest.raises(UnsupportedModelError, match=r"would produce 1,200 operations \(more than 1,199\)"):
        load_model(path)


def test_a_function_whose_own_opset_changes_an_operation_is_refused(tmp_path: Path) -> None:
    """Dropout under ai.onnx 6 (mode from is_test) inside a model of opset 17: refused, exit 2."""
    body = [helper.make_node("Dropout", ["a"], ["b"])]
    fn = helper.make_function("local", "f", ["a"], ["b"], body, [helper.make_opsetid("", 6)])
    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("f", ["x"], ["y"], domain="local")], "g",
                          [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, functions=[fn],
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    m.ir_version = 8
    path = tmp_path / "f.onnx"
    onnx.save(m, str(path))
    with pytest.raises(UnsupportedModelError, match=r"imports ai.onnx 6, the model 17: its Dropout would be version 6"):
        load_model(str(path))
    # the same function importing the model's opset loads
    m.functions[0].opset_import[0].version = 17
    onnx.save(m, str(path))
    assert load_model(str(path)).graph.operations[0].operator == "Dropout"


def test_a_call_that_omits_an_input_computes_what_onnx_computes(save: Save) -> None:
    """Inlining a call that omits an optional input makes every body entry reading it an omitted entry, the
    reading the spec proves equal to running the call as a nested graph with that input absent (spec 3.7,
    *Functions*); run, the inlined graph gives the values onnx's reference evaluator and onnxruntime give
    running the call as a function, which hand its body no value for the input."""
    body = [helper.make_node("Clip", ["a", "lo"], ["t"]), helper.make_node("Neg", ["t"], ["c"])]
    f = fn("f", ["a", "lo"], ["c"], body)
    nodes = [call("f", ["x", ""], ["z"], "k")]
    m = make_model(nodes, [fvi("x", [3])], [fvi("z", [3])], functions=[f], opsets=DOMAINS)
    path = save(m)
    assert load_model(path).graph.operations[0].input_mapping == ("x", "")
    x = np.array([-3.0, 0.5, 2.0], dtype=np.float32)
    ours = run(path, {"x": x})["z"]
    reference = ReferenceEvaluator(path).run(None, {"x": x})[0]
    runtime = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(ours, np.array([3.0, -0.5, -2.0], dtype=np.float32))
    np.testing.assert_array_equal(ours, reference)
    np.testing.assert_array_equal(ours, runtime)
