"""The planted-defect models of the qualification suite, built in code when the kit runs.

Each builder starts from one conforming model (:func:`conforming`: a dense layer
that every rule of ``sonnx-strict`` proves) and changes it so as to break one
rule of spec/graph.rst section 4; a rule that depends on the broken one may fail
with it, and the case's expected verdicts say which. The bytes are a pure
function of the code and of onnx's serializer (fixed values, no timestamps), so
the kit writes the same models on every run. Unreadable files are given as raw
bytes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR = 8
FLOAT = TensorProto.FLOAT
METADATA = {
    "sonnx.io_semantics": "x: 4 readings; y: 4 scores",
    "sonnx.dimension_semantics": "x: batch, reading; y: batch, score",
    "sonnx.execution_order": '["matmul", "bias", "relu"]',
    "sonnx.target": "any CPU (qualification model)",
    "sonnx.input_range.x": "-1..1",
}
"""The metadata STRICT-METADATA requires by default, and the range of ``x`` the error-condition rules assume, so
that the conforming model proves every strict rule (spec/operators.rst section 5)."""


def _vi(name: str, shape: list[int | str]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, FLOAT, shape)


def _weights() -> list[onnx.TensorProto]:
    w = np.arange(16, dtype=np.float32).reshape(4, 4) / 8.0 - 1.0
    b = np.linspace(-0.5, 0.5, 4, dtype=np.float32).reshape(1, 4)
    return [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]


def _nodes() -> list[onnx.NodeProto]:
    return [
        helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
        helper.make_node("Add", ["p", "b"], ["s"], name="bias"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto] | None = None,
    outputs: list[onnx.ValueInfoProto] | None = None,
    initializer: list[onnx.TensorProto] | None = None,
    opsets: dict[str, int] | None = None,
    functions: list[onnx.FunctionProto] | None = None,
    sparse: list[onnx.SparseTensorProto] | None = None,
    value_info: list[onnx.ValueInfoProto] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "qualification",
        [_vi("x", [1, 4])] if inputs is None else inputs,
        [_vi("y", [1, 4])] if outputs is None else outputs,
        initializer=_weights() if initializer is None else initializer,
        value_info=[_vi("p", [1, 4]), _vi("s", [1, 4]), *(value_info or [])],
        sparse_initializer=sparse or [],
    )
    imports = [helper.make_opsetid(domain, version) for domain, version in sorted((opsets or {"": OPSET}).items())]
    model = helper.make_model(graph, opset_imports=imports, functions=functions or [], producer_name="sonnx-qualify")
    model.ir_version = IR
    helper.set_model_props(model, {**METADATA, "sonnx.execution_order": _order(nodes)})
    return model


def _order(nodes: list[onnx.NodeProto]) -> str:
    """The ``sonnx.execution_order`` STRICT-METADATA asks for: the operations' names in file order."""
    return "[" + ", ".join(f'"{n.name}"' for n in nodes) + "]"


def conforming() -> onnx.ModelProto:
    """MatMul, Add and Relu on static shapes, the bias at the output's shape, the required metadata given."""
    return _model(_nodes())


def cycle() -> onnx.ModelProto:
    """The Add reads the Relu's output, which reads the Add's: a dependency cycle (GRAPH-ACYCLIC)."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
        helper.make_node("Add", ["p", "y"], ["s"], name="bias"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    return _model(nodes, initializer=_weights()[:1])


def two_producers() -> onnx.ModelProto:
    """A second operation also writes ``s`` (GRAPH-C1)."""
    return _model([*_nodes()[:2], helper.make_node("Neg", ["p"], ["s"], name="again"), _nodes()[2]])


def writes_input() -> onnx.ModelProto:
    """An operation writes the graph input ``x`` (GRAPH-C1-SOURCES)."""
    return _model([*_nodes(), helper.make_node("Neg", ["y"], ["x"], name="overwrite")])


def unused_input() -> onnx.ModelProto:
    """A second graph input that no operation reads (GRAPH-C2)."""
    return _model(_nodes(), inputs=[_vi("x", [1, 4]), _vi("spare", [1, 4])])


def no_outputs() -> onnx.ModelProto:
    """The graph declares no output (GRAPH-OUTPUTS; every operation is then dead)."""
    return _model(_nodes(), outputs=[])


def dead_operation() -> onnx.ModelProto:
    """An operation whose result nothing reads and no output returns (GRAPH-R1)."""
    return _model([*_nodes(), helper.make_node("Neg", ["p"], ["unread"], name="dead")])


def unused_initializer() -> onnx.ModelProto:
    """An initializer no operation reads (GRAPH-INITIALIZERS-USED, a warning)."""
    spare = numpy_helper.from_array(np.zeros((2,), dtype=np.float32), "spare")
    return _model(_nodes(), initializer=[*_weights(), spare])


def random_operator() -> onnx.ModelProto:
    """A RandomUniformLike feeds the output: a non-deterministic operator (GRAPH-R2, GRAPH-DETERMINISM)."""
    nodes = [
        *_nodes()[:2],
        helper.make_node("RandomUniformLike", ["s"], ["noise"], name="noise", dtype=FLOAT, high=1.0, low=0.0),
        helper.make_node("Add", ["s", "noise"], ["z"], name="mix"),
        helper.make_node("Relu", ["z"], ["y"], name="relu"),
    ]
    return _model(nodes)


def shadowing_function() -> onnx.ModelProto:
    """A model-local function takes the default domain's name Relu (GRAPH-FUNCTION-SHADOWING)."""
    body = [helper.make_node("Neg", ["a"], ["b"], name="neg")]
    relu = helper.make_function("", "Relu", ["a"], ["b"], body, [helper.make_opsetid("", OPSET)])
    return _model(_nodes(), functions=[relu])


def undefined_attribute() -> onnx.ModelProto:
    """The Relu carries an attribute its schema does not define (GRAPH-ATTRIBUTES)."""
    nodes = [*_nodes()[:2], helper.make_node("Relu", ["s"], ["y"], name="relu", slope=0.5)]
    return _model(nodes)


def dynamic_shape() -> onnx.ModelProto:
    """The input's batch dimension is symbolic (STRICT-SHAPES)."""
    return _model(_nodes(), inputs=[_vi("x", ["batch", 4])], outputs=[_vi("y", ["batch", 4])])


def custom_operator() -> onnx.ModelProto:
    """An operator of a custom domain that no schema describes: the rules that need its meaning cannot decide."""
    nodes = [*_nodes()[:2], helper.make_node("Mystery", ["s"], ["y"], name="mystery", domain="com.example")]
    return _model(nodes, opsets={"": OPSET, "com.example": 1})


def sparse_initializer() -> onnx.ModelProto:
    """The bias is stored as a sparse initializer (STRICT-SPARSE)."""
    values = numpy_helper.from_array(np.array([0.5], dtype=np.float32), "b")
    indices = numpy_helper.from_array(np.array([2], dtype=np.int64), "b_indices")
    return _model(_nodes(), initializer=_weights()[:1], sparse=[helper.make_sparse_tensor(values, indices, [1, 4])])


def missing_opset() -> onnx.ModelProto:
    """A custom-domain operator whose domain the model does not import (STRICT-OPSET)."""
    nodes = [*_nodes()[:2], helper.make_node("Mystery", ["s"], ["y"], name="relu", domain="com.example")]
    return _model(nodes)


def _int_model(nodes: list[onnx.NodeProto], inputs: dict[str, tuple[int, list[int], str]],
               outputs: dict[str, tuple[int, list[int]]],
               initializer: list[onnx.TensorProto] | None = None) -> onnx.ModelProto:
    """A model of the operator layer's cases: inputs by name with element type, shape and declared range."""
    graph = helper.make_graph(
        nodes, "qualification",
        [helper.make_tensor_value_info(n, t, shape) for n, (t, shape, _) in inputs.items()],
        [helper.make_tensor_value_info(n, t, shape) for n, (t, shape) in outputs.items()],
        initializer=initializer or [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="sonnx-qualify")
    model.ir_version = IR
    ranges = {f"sonnx.input_range.{n}": r for n, (_, _, r) in inputs.items()}
    kept = {k: v for k, v in METADATA.items() if k != "sonnx.input_range.x"}
    helper.set_model_props(model, {**kept, "sonnx.execution_order": _order(nodes), **ranges})
    return model


def negative_softmax_axis() -> onnx.ModelProto:
    """A Softmax over axis -1 (STRICT-OP-RESTRICTIONS: the working group's Softmax asks for an axis of at least 0)."""
    nodes = [*_nodes()[:2], helper.make_node("Relu", ["s"], ["r"], name="relu"),
             helper.make_node("Softmax", ["r"], ["y"], name="softmax", axis=-1)]
    return _model(nodes, value_info=[_vi("r", [1, 4])])


def inner_dimension_mismatch() -> onnx.ModelProto:
    """The MatMul's weight has 3 rows for an input of 4 columns (OP-SHAPES; onnx's checker refuses it too)."""
    w = numpy_helper.from_array(np.ones((3, 4), dtype=np.float32), "w")
    return _model(_nodes(), initializer=[w, _weights()[1]])


def value_dependent_reshape() -> onnx.ModelProto:
    """A Reshape whose target shape is a graph input's value (OP-VALUE-SHAPES)."""
    nodes = [*_nodes()[:2], helper.make_node("Reshape", ["s", "shape"], ["r"], name="reshape", allowzero=0),
             helper.make_node("Relu", ["r"], ["y"], name="relu")]
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    return _model(nodes, inputs=[_vi("x", [1, 4]), shape], outputs=[_vi("y", [1, 4])], value_info=[_vi("r", [1, 4])])


def integer_division_by_zero() -> onnx.ModelProto:
    """An integer Div whose divisor's declared range holds 0 (OP-ERROR-DIV-ZERO)."""
    i32 = TensorProto.INT32
    return _int_model([helper.make_node("Div", ["a", "b"], ["q"], name="div")],
                      {"a": (i32, [4], "-8..8"), "b": (i32, [4], "-2..2")}, {"q": (i32, [4])})


def _unary(op: str, rng: str) -> onnx.ModelProto:
    return _int_model([helper.make_node(op, ["x"], ["y"], name=op.lower())],
                      {"x": (FLOAT, [4], rng)}, {"y": (FLOAT, [4])})


def log_of_negative() -> onnx.ModelProto:
    """Log of an input declared in -1..1 (OP-ERROR-LOG)."""
    return _unary("Log", "-1..1")


def sqrt_of_negative() -> onnx.ModelProto:
    """Sqrt of an input declared in -1..1 (OP-ERROR-SQRT)."""
    return _unary("Sqrt", "-1..1")


def pow_of_negative() -> onnx.ModelProto:
    """A negative base to the power 0.5 (OP-ERROR-POW)."""
    half = numpy_helper.from_array(np.full((4,), 0.5, dtype=np.float32), "half")
    return _int_model([helper.make_node("Pow", ["x", "half"], ["y"], name="pow")],
                      {"x": (FLOAT, [4], "-1..1")}, {"y": (FLOAT, [4])}, [half])


def index_out_of_range() -> onnx.ModelProto:
    """Gather from 4 rows with indices declared in 0..9 (OP-ERROR-INDEX)."""
    table = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(4, 2), "table")
    return _int_model([helper.make_node("Gather", ["table", "ids"], ["y"], name="gather", axis=0)],
                      {"ids": (TensorProto.INT64, [2], "0..9")}, {"y": (FLOAT, [2, 2])}, [table])


def integer_overflow() -> onnx.ModelProto:
    """An int8 Add of two inputs over the whole int8 range (OP-ERROR-INT-OVERFLOW)."""
    i8 = TensorProto.INT8
    return _int_model([helper.make_node("Add", ["a", "b"], ["c"], name="add")],
                      {"a": (i8, [4], "-128..127"), "b": (i8, [4], "-128..127")}, {"c": (i8, [4])})


def float_overflow() -> onnx.ModelProto:
    """Exp of an input declared in -100..100: infinity above about 88.7 (OP-RANGE-FLOAT, a warning)."""
    return _unary("Exp", "-100..100")


ModelBuilder = Callable[[], onnx.ModelProto]

BUILDERS: dict[str, ModelBuilder] = {
    "conforming": conforming,
    "cycle": cycle,
    "two_producers": two_producers,
    "writes_input": writes_input,
    "unused_input": unused_input,
    "no_outputs": no_outputs,
    "dead_operation": dead_operation,
    "unused_initializer": unused_initializer,
    "random_operator": random_operator,
    "shadowing_function": shadowing_function,
    "undefined_attribute": undefined_attribute,
    "dynamic_shape": dynamic_shape,
    "custom_operator": custom_operator,
    "sparse_initializer": sparse_initializer,
    "missing_opset": missing_opset,
    "negative_softmax_axis": negative_softmax_axis,
    "inner_dimension_mismatch": inner_dimension_mismatch,
    "value_dependent_reshape": value_dependent_reshape,
    "integer_division_by_zero": integer_division_by_zero,
    "log_of_negative": log_of_negative,
    "sqrt_of_negative": sqrt_of_negative,
    "pow_of_negative": pow_of_negative,
    "index_out_of_range": index_out_of_range,
    "integer_overflow": integer_overflow,
    "float_overflow": float_overflow,
}
"""Every planted model by name (the name the case table uses and the file the kit writes)."""

UNREADABLE: dict[str, bytes] = {
    "not_onnx": b"this is a text file, not an ONNX model\n",
    "truncated": b"\x08\x08\x12\x0csonnx-qualify:\xff\x01\n",
    "empty": b"",
}
"""Files no loader can use, by name: text, a protobuf record cut off inside a field, nothing at all."""


def model_bytes(name: str) -> bytes:
    """The serialized bytes of the planted model or unreadable file ``name``."""
    if name in UNREADABLE:
        return UNREADABLE[name]
    return BUILDERS[name]().SerializeToString(deterministic=True)
