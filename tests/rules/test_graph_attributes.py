"""GRAPH-ATTRIBUTES: attribute names, types, required attributes and values against each operator version's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto
from onnx import helper as oh

from sonnx.base.verdict import Status
from sonnx.loader.load import load_model
from sonnx.model.graph import Attribute, Graph, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, tensors

pytestmark = pytest.mark.rule("GRAPH-ATTRIBUTES")

ID = "GRAPH-ATTRIBUTES"


def build(operator: str, inputs: list[str], name: str = "", **attributes: Any) -> Any:
    """An operation; a tuple of strings becomes a STRINGS attribute (make_operation types the others)."""
    strings = {k: v for k, v in attributes.items() if isinstance(v, tuple) and v and isinstance(v[0], str)}
    plain = op(operator, inputs, ["y"], name=name, **{k: v for k, v in attributes.items() if k not in strings})
    extra = tuple(Attribute(k, "STRINGS", v) for k, v in strings.items())
    return plain._replace(attributes=plain.attributes + extra)


def ranked(*shapes: tuple[str, tuple[Any, ...] | None]) -> dict[str, Tensor]:
    """Graph inputs with declared float shapes (None: no shape declared)."""
    return {n: Tensor(n, TensorType("tensor", 1, s)) for n, s in shapes}


def one(operation: Any, inputs: dict[str, Tensor] | None = None, extra: dict[str, Tensor] | None = None) -> Graph:
    """A graph of one operation whose inputs are graph inputs (declared by ``inputs``) and ``extra`` tensors."""
    ins = inputs or ranked(*((n, (2, 3)) for n in operation.input_mapping if n))
    return make_graph("g", list(ins), list(operation.output_mapping), [operation], {**ins, **(extra or {})})


def verdict(operation: Any, opset: int = 17, **kw: Any) -> Any:
    return run(ID, model(one(operation, **kw), opset))


def offender(operation: Any, opset: int = 17, **kw: Any) -> dict[str, Any]:
    v = verdict(operation, opset, **kw)
    assert v.status is Status.VIOLATED, v
    (found,) = data(v)["attributes"]
    return dict(found)


# -- enumerated strings, flags, sizes, data types: each class with a value inside and one outside ---------------

CASES = [
    # (operator, inputs, opset, attributes inside, attributes outside, the attribute named)
    ("Conv", ["x", "w"], 17, {"auto_pad": "SAME_UPPER"}, {"auto_pad": "same_upper"}, "auto_pad"),
    ("MaxPool", ["x"], 17, {"kernel_shape": [2]}, {"kernel_shape": [2], "strides": [0]}, "strides"),
    ("MaxPool", ["x"], 17, {"kernel_shape": [2], "pads": [0, 0]}, {"kernel_shape": [2], "pads": [-1, -1]}, "pads"),
    ("Conv", ["x", "w"], 17, {"group": 1}, {"group": 0}, "group"),
    ("Pad", ["x", "p"], 13, {"mode": "reflect"}, {"mode": "Reflect"}, "mode"),
    ("Pad", ["x", "p"], 19, {"mode": "wrap"}, {"mode": "Wrap"}, "mode"),
    ("Resize", ["x", "", "s"], 11, {"coordinate_transformation_mode": "tf_half_pixel_for_nn"},
     {"coordinate_transformation_mode": "half_pixel_symmetric"}, "coordinate_transformation_mode"),
    ("Resize", ["x", "", "s"], 17, {"nearest_mode": "floor"}, {"nearest_mode": "round"}, "nearest_mode"),
    ("GridSample", ["x", "grid"], 20, {"mode": "linear"}, {"mode": "bilinear"}, "mode"),
    ("Upsample", ["x", "s"], 9, {"mode": "linear"}, {"mode": "bilinear"}, "mode"),
    ("ScatterND", ["x", "i", "u"], 18, {"reduction": "max"}, {"reduction": "sum"}, "reduction"),
    ("ScatterElements", ["x", "i", "u"], 16, {"reduction": "mul"}, {"reduction": "max"}, "reduction"),
    ("LSTM", ["x", "w", "r"], 17, {"direction": "reverse"}, {"direction": "backward"}, "direction"),
    ("GRU", ["x", "w", "r"], 17, {"activations": ("Sigmoid", "Tanh")}, {"activations": ("sigmoid", "Tanh")},
     "activations"),
    ("DepthToSpace", ["x"], 17, {"blocksize": 2, "mode": "CRD"}, {"blocksize": 2, "mode": "RDC"}, "mode"),
    ("Gelu", ["x"], 20, {"approximate": "tanh"}, {"approximate": "fast"}, "approximate"),
    ("ArgMax", ["x"], 17, {"keepdims": 0}, {"keepdims": 3}, "keepdims"),
    ("TopK", ["x", "k"], 17, {"sorted": 1}, {"sorted": 2}, "sorted"),
    ("TopK", ["x", "k"], 17, {"largest": 0}, {"largest": -1}, "largest"),
    ("Cast", ["x"], 17, {"to": TensorProto.FLOAT16}, {"to": 999}, "to"),
    ("Cast", ["x"], 24, {"to": TensorProto.FLOAT8E8M0}, {"to": TensorProto.UNDEFINED}, "to"),
    ("Cast", ["x"], 21, {"to": TensorProto.INT4}, {"to": TensorProto.FLOAT4E2M1}, "to"),
    ("Cast", ["x"], 5, {"to": "FLOAT"}, {"to": "float"}, "to"),
    ("Einsum", ["x", "w"], 17, {"equation": "ij,jk->ik"}, {"equation": "ij;jk=>ik"}, "equation"),
]


@pytest.mark.parametrize(("operator", "inputs", "opset", "inside", "outside", "named"), CASES,
                         ids=[f"{c[0]}-{c[2]}-{c[5]}" for c in CASES])
def test_a_value_outside_the_defined_set_is_a_violation(
    operator: str, inputs: list[str], opset: int, inside: dict[str, Any], outside: dict[str, Any], named: str
) -> None:
    ins = ranked(*((n, (1, 1, 4, 4)) for n in inputs if n))
    good = verdict(build(operator, inputs, "n", **inside), opset, inputs=ins)
    assert good.status is Status.PROVED, good
    found = offender(build(operator, inputs, "n", **outside), opset, inputs=ins)
    assert found["attribute"] == named and found["operation"] == f"{operator}:n"
    assert found["scope"] == "g" and found["index"] == 0
    shown = outside[named]
    listed = f"[{', '.join(map(repr, shown))}]" if isinstance(shown, list | tuple) else repr(shown)
    assert found["value"] == listed
    assert found["defined"]


def test_the_witness_gives_the_defined_set() -> None:
    found = offender(op("Conv", ["x", "w"], ["y"], auto_pad="same_upper"))
    assert found["defined"] == "one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"
    assert "FLOAT8E8M0" not in offender(op("Cast", ["x"], ["y"], to=24), 21)["defined"]
    v = verdict(op("Conv", ["x", "w"], ["y"], name="c", auto_pad="same_upper"))
    assert v.witness is not None and v.witness.summary == (
        "1 attribute value(s) outside their operator's definition: Conv:c auto_pad='same_upper' "
        "(defined: one of NOTSET, SAME_UPPER, SAME_LOWER, VALID)"
    )


# -- names, types, required attributes (onnx's schemas) --------------------------------------------------------


def test_an_attribute_the_schema_does_not_define_is_a_violation() -> None:
    found = offender(op("Relu", ["x"], ["y"], foo=1))
    assert (found["attribute"], found["value"]) == ("foo", "1")
    assert found["defined"] == "the attributes Relu-14 has: none"
    # the schema of the model's opset decides: Dropout lost its ratio attribute in version 12
    assert verdict(op("Dropout", ["x"], ["y"], ratio=0.5), 10).status is Status.PROVED
    assert offender(op("Dropout", ["x"], ["y"], ratio=0.5), 12)["attribute"] == "ratio"


def test_a_value_of_another_type_is_a_violation() -> None:
    bad = op("Softmax", ["x"], ["y"])._replace(attributes=(Attribute("axis", "FLOAT", 1.0),))
    found = offender(bad)
    assert (found["attribute"], found["defined"]) == ("axis", "a value of type INT, not FLOAT")
    untyped = op("Softmax", ["x"], ["y"])._replace(attributes=(Attribute("axis", "UNDEFINED", None),))
    assert offender(untyped)["defined"] == "a value of type INT, not UNDEFINED"


def test_a_required_attribute_left_out_is_a_violation() -> None:
    found = offender(op("Cast", ["x"], ["y"]))
    assert (found["attribute"], found["value"], found["defined"]) == ("to", "absent", "required")
    assert offender(op("Concat", ["x", "z"], ["y"]))["attribute"] == "axis"


def test_an_operation_without_schema_leaves_the_verdict_unknown() -> None:
    v = verdict(op("Fancy", ["x"], ["y"], domain="com.vendor", mode="x"))
    assert v.status is Status.UNKNOWN and "com.vendor::Fancy" in (v.reason or "")


def test_a_set_sonnx_cannot_decide_leaves_the_verdict_unknown() -> None:
    v = verdict(op("StringNormalizer", ["x"], ["y"], locale="tr_TR"))
    assert v.status is Status.UNKNOWN and "locale" in (v.reason or "")
    # a free set is decided: any stop word is defined
    assert verdict(build("StringNormalizer", ["x"], stopwords=("a",))).status is Status.PROVED


def test_violations_win_over_open_checks_and_are_all_counted() -> None:
    ops = [
        op("Softmax", ["x"], ["a"], axis=1),
        op("Conv", ["a", "w"], ["b"], name="c1", auto_pad="same"),
        op("Conv", ["b", "w"], ["y"], name="c2", auto_pad="valid"),
    ]
    ins = ranked(("x", None), ("w", (1, 1, 1, 1)))
    v = run(ID, model(make_graph("g", list(ins), ["y"], ops, ins)))
    d = data(v)
    assert v.status is Status.VIOLATED and d["count"] == 2 and d["unknown_count"] == 1
    assert [f["operation"] for f in d["attributes"]] == ["Conv:c1", "Conv:c2"]


# -- axes: ranges by version, decided only on ranks that hold in every run -------------------------------------


def test_a_negative_axis_before_the_version_that_defines_it() -> None:
    # Softmax-1 (opset 10): no negative axis, whatever the rank; Softmax-11 defines [-r, r-1]
    found = offender(op("Softmax", ["x"], ["y"], axis=-1), 10, inputs=ranked(("x", None)))
    assert found["attribute"] == "axis" and "version 1 defines no negative axis" in found["defined"]
    assert verdict(op("Softmax", ["x"], ["y"], axis=-1), 11).status is Status.PROVED
    assert offender(op("ReduceMean", ["x"], ["y"], axes=[-1]), 10)["attribute"] == "axes"
    assert verdict(op("ReduceMean", ["x"], ["y"], axes=[-1]), 11).status is Status.PROVED
    assert offender(op("Unsqueeze", ["x"], ["y"], axes=[-1]), 10)["attribute"] == "axes"


@pytest.mark.parametrize(
    ("operation", "opset", "rank", "expected"),
    [
        (op("Softmax", ["x"], ["y"], axis=1), 17, 2, Status.PROVED),
        (op("Softmax", ["x"], ["y"], axis=2), 17, 2, Status.VIOLATED),
        (op("Softmax", ["x"], ["y"], axis=-2), 17, 2, Status.PROVED),
        (op("Softmax", ["x"], ["y"], axis=-3), 17, 2, Status.VIOLATED),
        (op("Flatten", ["x"], ["y"], axis=3), 17, 3, Status.PROVED),  # Flatten's range ends at r
        (op("Flatten", ["x"], ["y"], axis=4), 17, 3, Status.VIOLATED),
        (op("Flatten", ["x"], ["y"], axis=-3), 17, 3, Status.PROVED),
        (op("Unsqueeze", ["x"], ["y"], axes=[2]), 11, 2, Status.PROVED),  # the output's rank: 2 + 1
        (op("Unsqueeze", ["x"], ["y"], axes=[3]), 11, 2, Status.VIOLATED),
        (op("Unsqueeze", ["x"], ["y"], axes=[3, 0]), 11, 2, Status.PROVED),
        (op("Unsqueeze", ["x"], ["y"], axes=[3, -1]), 11, 2, Status.VIOLATED),  # -1 is axis 3 of the rank-4 output
        (op("Unsqueeze", ["x"], ["y"], axes=[0, 0]), 11, 2, Status.VIOLATED),
        (op("Resize", ["x", "", "s"], ["y"], axes=[1, -1]), 19, 2, Status.VIOLATED),
        (op("Resize", ["x", "", "s"], ["y"], axes=[0, -1]), 19, 2, Status.PROVED),
        (op("OneHot", ["x", "d", "v"], ["y"], axis=-3), 17, 2, Status.PROVED),  # [-r-1, r]
        (op("OneHot", ["x", "d", "v"], ["y"], axis=-4), 17, 2, Status.VIOLATED),
        (op("OneHot", ["x", "d", "v"], ["y"], axis=-1), 10, 2, Status.PROVED),  # version 9: -1 only
        (op("OneHot", ["x", "d", "v"], ["y"], axis=-2), 10, 2, Status.VIOLATED),
        (op("DFT", ["x"], ["y"], axis=-1), 17, 3, Status.VIOLATED),  # [-r, -2] and [0, r-2]
        (op("DFT", ["x"], ["y"], axis=1), 17, 3, Status.PROVED),
        (op("LayerNormalization", ["x", "s"], ["y"], axis=-2), 17, 2, Status.PROVED),
        (op("Transpose", ["x"], ["y"], perm=[1, 0]), 17, 2, Status.PROVED),
        (op("Transpose", ["x"], ["y"], perm=[1, 0]), 17, 3, Status.VIOLATED),
        (op("Transpose", ["x"], ["y"], perm=[0, 0]), 17, 2, Status.VIOLATED),
        (op("Concat", ["x", "x"], ["y"], axis=2), 17, 2, Status.VIOLATED),
        (op("Gather", ["x", "i"], ["y"], axis=-2), 17, 2, Status.PROVED),
    ],
    ids=lambda v: getattr(v, "label", str(v)),
)
def test_axis_ranges_on_declared_input_ranks(operation: Any, opset: int, rank: int, expected: Status) -> None:
    ins = ranked(*((n, (2,) * rank) for n in dict.fromkeys(operation.input_mapping) if n))
    assert verdict(operation, opset, inputs=ins).status is expected


def test_an_axis_whose_rank_is_not_established_stays_open() -> None:
    v = verdict(op("Softmax", ["x"], ["y"], axis=1), inputs=ranked(("x", None)))
    assert v.status is Status.UNKNOWN
    assert v.reason == "attribute values not established: Softmax axis: the rank of input 'x' is not established " \
                       "(1 operation(s))"
    # a permutation whose length cannot be compared with the rank stays open too
    assert verdict(op("Transpose", ["x"], ["y"], perm=[1, 0]), inputs=ranked(("x", None))).status is Status.UNKNOWN
    # but an axis listed twice is outside whatever the rank
    found = offender(op("Unsqueeze", ["x"], ["y"], axes=[1, 1]), 11, inputs=ranked(("x", None)))
    assert found["attribute"] == "axes" and found["defined"].endswith("each named once")


def test_a_declared_intermediate_rank_is_not_a_fact() -> None:
    # 'a' is declared rank 2 (value_info), but runtimes do not enforce it, and NonZero's output rank is not derived
    ops = [op("NonZero", ["x"], ["a"]), op("Softmax", ["a"], ["y"], axis=5)]
    ts = {**ranked(("x", (2, 2))), "a": Tensor("a", TensorType("tensor", 7, (2, 2)))}
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops, ts))).status is Status.UNKNOWN


def test_ranks_of_initializers_and_constants() -> None:
    ops = [op("Concat", ["w", "w"], ["y"], axis=2)]
    assert run(ID, model(make_graph("g", [], ["y"], ops, tensors(init("w", [[1.0]]))))).status is Status.VIOLATED
    const = op("Constant", [], ["c"])._replace(attributes=(Attribute("value_floats", "FLOATS", (1.0, 2.0)),))
    g = make_graph("g", [], ["y"], [const, op("Softmax", ["c"], ["y"], axis=1)])
    assert run(ID, model(g)).status is Status.VIOLATED  # value_floats is a vector: rank 1
    # an input whose initializer has another rank than the declared one: neither is a fact
    ts = {"x": Tensor("x", TensorType("tensor", 1, (2, 2)), init("x", [1.0]).initial_value)}
    g = make_graph("g", ["x"], ["y"], [op("Softmax", ["x"], ["y"], axis=1)], ts)
    assert run(ID, model(g)).status is Status.UNKNOWN


def test_nested_graphs_read_outer_ranks_but_their_own_inputs_are_no_facts() -> None:
    then_g = make_graph("t", [], ["a"], [op("Softmax", ["x"], ["a"], name="sm", axis=5)])
    else_g = make_graph("e", [], ["b"], [op("Relu", ["x"], ["b"])])
    holder = op("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    ins = {**ranked(("x", (2, 2))), "c": Tensor("c", TensorType("tensor", 9, ()))}
    found = offender(holder, inputs=ins)
    assert (found["scope"], found["operation"]) == ("g/If:if.then_branch", "Softmax:sm")
    body_ts = {"i": Tensor("i", TensorType("tensor", 7, ())), "v": Tensor("v", TensorType("tensor", 1, (2, 2)))}
    body = make_graph("b", ["i", "cond", "v"], ["cond", "w"], [op("Softmax", ["v"], ["w"], axis=1)], body_ts)
    loop = op("Loop", ["n", "", "x"], ["z"], body=body)
    ins = {**ranked(("x", (2, 2))), "n": Tensor("n", TensorType("tensor", 7, ()))}
    assert verdict(loop, inputs=ins).status is Status.UNKNOWN


def test_function_bodies_are_checked_once_inlined(tmp_path: Path) -> None:
    body = [oh.make_node("Softmax", ["a"], ["b"], axis=-1)]
    fn = oh.make_function("local", "Soft", ["a"], ["b"], body, [oh.make_opsetid("", 10)])
    call = oh.make_node("Soft", ["x"], ["y"], domain="local", name="call")
    graph = oh.make_graph([call], "g", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    proto = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 10), oh.make_opsetid("local", 1)],
                          functions=[fn], ir_version=8)
    path = tmp_path / "f.onnx"
    onnx.save(proto, str(path))
    v = run(ID, load_model(str(path)))
    assert v.status is Status.VIOLATED and data(v)["attributes"][0]["attribute"] == "axis"
