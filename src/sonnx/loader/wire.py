"""A minimal protobuf wire-format encoder for ONNX test models.

Why: ``onnx.helper`` builds messages with the installed protobuf backend,
which refuses nesting deeper than 100 levels, so it cannot write a model with
2,000 nested ``If`` bodies. Such a file is valid ONNX and the loader must
read it; tests, examples and benchmarks write it with this module.

Only the fields needed for small graphs are covered (field numbers from
``onnx.proto``): ``ModelProto`` (ir_version=1, graph=7, opset_import=8),
``OperatorSetIdProto`` (domain=1, version=2), ``GraphProto`` (node=1, name=2,
initializer=5, input=11, output=12, value_info=13), ``NodeProto`` (input=1,
output=2, name=3, op_type=4, attribute=5, domain=7), ``AttributeProto``
(name=1, i=3, g=6, type=20), ``ValueInfoProto`` (name=1, type=2),
``TypeProto`` (tensor_type=1), ``TypeProto.Tensor`` (elem_type=1, shape=2),
``TensorShapeProto`` (dim=1) and its ``Dimension`` (dim_value=1,
dim_param=2). Nothing here recurses: nested graphs are passed in as bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Text = str | bytes

FLOAT = 1
BOOL = 9
ATTR_INT = 2
ATTR_GRAPH = 5


def varint(value: int) -> bytes:
    """Base-128 varint; a negative value is encoded as its 64-bit two's complement (as protobuf does)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def field_varint(number: int, value: int) -> bytes:
    """A varint field (wire type 0)."""
    return varint(number << 3) + varint(value)


def field_bytes(number: int, data: Text) -> bytes:
    """A length-delimited field (wire type 2): bytes, a UTF-8 string or an embedded message."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return varint((number << 3) | 2) + varint(len(raw)) + raw


def tensor_type(elem_type: int, shape: Sequence[int | str] | None = None) -> bytes:
    """A ``TypeProto`` holding a tensor type; ``shape`` None leaves the rank unknown."""
    body = field_varint(1, elem_type)
    if shape is not None:
        dims = b"".join(
            field_bytes(1, field_varint(1, d) if isinstance(d, int) else field_bytes(2, d)) for d in shape
        )
        body += field_bytes(2, dims)
    return field_bytes(1, body)


def value_info(name: str, elem_type: int | None = None, shape: Sequence[int | str] | None = None) -> bytes:
    """A ``ValueInfoProto``; without ``elem_type`` it carries no type."""
    out = field_bytes(1, name)
    if elem_type is not None:
        out += field_bytes(2, tensor_type(elem_type, shape))
    return out


def graph_attribute(name: str, graph: bytes) -> bytes:
    """An ``AttributeProto`` of type GRAPH whose value is the encoded ``GraphProto`` ``graph``."""
    return field_bytes(1, name) + field_bytes(6, graph) + field_varint(20, ATTR_GRAPH)


def int_attribute(name: str, value: int) -> bytes:
    """An ``AttributeProto`` of type INT."""
    return field_bytes(1, name) + field_varint(3, value) + field_varint(20, ATTR_INT)


def node(
    op_type: str,
    inputs: Iterable[str],
    outputs: Iterable[str],
    name: str = "",
    domain: str = "",
    attributes: Iterable[bytes] = (),
) -> bytes:
    """A ``NodeProto``; ``attributes`` are encoded ``AttributeProto`` messages."""
    out = b"".join(field_bytes(1, i) for i in inputs)
    out += b"".join(field_bytes(2, o) for o in outputs)
    if name:
        out += field_bytes(3, name)
    out += field_bytes(4, op_type)
    out += b"".join(field_bytes(5, a) for a in attributes)
    if domain:
        out += field_bytes(7, domain)
    return out


def graph(
    name: str,
    nodes: Iterable[bytes],
    inputs: Iterable[bytes] = (),
    outputs: Iterable[bytes] = (),
    initializers: Iterable[bytes] = (),
    value_infos: Iterable[bytes] = (),
) -> bytes:
    """A ``GraphProto`` from encoded nodes, value infos and ``TensorProto`` initializers."""
    out = b"".join(field_bytes(1, n) for n in nodes)
    out += field_bytes(2, name)
    out += b"".join(field_bytes(5, t) for t in initializers)
    out += b"".join(field_bytes(11, v) for v in inputs)
    out += b"".join(field_bytes(12, v) for v in outputs)
    out += b"".join(field_bytes(13, v) for v in value_infos)
    return out


def model(graph_bytes: bytes, ir_version: int = 8, opsets: Sequence[tuple[str, int]] = (("", 17),)) -> bytes:
    """A ``ModelProto`` around an encoded graph."""
    out = field_varint(1, ir_version)
    out += field_bytes(7, graph_bytes)
    out += b"".join(field_bytes(8, (field_bytes(1, d) if d else b"") + field_varint(2, v)) for d, v in opsets)
    return out


def encode_nested_if_model(depth: int, *, ir_version: int = 8, opset: int = 17) -> bytes:
    """A valid model whose graphs nest ``depth`` ``If`` bodies deep.

    Level 0 is the main graph, with inputs ``c`` (bool scalar) and ``x``
    (float ``[1]``) and output ``y0``. Level ``k < depth`` holds one ``If``
    node ``if<k>`` reading ``c`` and writing ``y<k>``; its ``then_branch`` is
    level ``k+1`` and its ``else_branch`` a graph ``else<k>`` with one
    ``Identity`` from ``x`` to ``e<k>``. Level ``depth`` (graph ``leaf``) is one
    ``Identity`` from ``x`` to ``y<depth>``. Nested graphs read ``c`` and ``x``
    from the main graph (captures). There are ``2 * depth + 1`` graphs.
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    inner = graph(
        "leaf",
        [node("Identity", ["x"], [f"y{depth}"], name=f"id{depth}")],
        outputs=[value_info(f"y{depth}", FLOAT, [1])],
    )
    for k in range(depth - 1, -1, -1):
        other = graph(
            f"else{k}",
            [node("Identity", ["x"], [f"e{k}"], name=f"else_id{k}")],
            outputs=[value_info(f"e{k}", FLOAT, [1])],
        )
        if_node = node(
            "If",
            ["c"],
            [f"y{k}"],
            name=f"if{k}",
            attributes=[graph_attribute("then_branch", inner), graph_attribute("else_branch", other)],
        )
        inputs = [value_info("c", BOOL, []), value_info("x", FLOAT, [1])] if k == 0 else []
        inner = graph(
            "main" if k == 0 else f"level{k}",
            [if_node],
            inputs=inputs,
            outputs=[value_info(f"y{k}", FLOAT, [1])],
        )
    return model(inner, ir_version=ir_version, opsets=[("", opset)])
