"""Fields and element types that an IR version introduced, and what sonnx does when an older model uses one.

A model states the IR version it is written in. A field that version does not
define is not part of the model as ONNX reads it, yet protobuf parses it like
any other, and sonnx never gives it a meaning silently (spec/graph.rst,
FORMAT-ONNX and reading A14). Measured with onnx 1.23.2 and onnxruntime 1.32
on a model one IR version below each field's: onnx.checker accepts all of them
(element types included) except ``opset_import`` before IR 3 (and the sparse
initializer, for a reason that is not the IR version); onnxruntime
honours each field with a meaning that was tried (local functions at IR 7,
attribute defaults at IR 8, overloads at IR 9, sparse initializers at IR 5,
``opset_import`` at IR 2; element types were not run on it).
Ignoring such a field would therefore make sonnx's verdicts disagree with what
onnxruntime executes, so the two kinds are treated apart:

* :data:`MEANING` -- fields that change what the model computes, and element
  types: the loader refuses the model (:class:`UnsupportedModelError`, exit 2)
  naming the field, where it is, the IR version that introduced it and the
  model's;
* :data:`ANNOTATIONS` -- fields that no runtime and no rule reads (metadata,
  quantization annotations, training and device information): they stay
  ignored, and FORMAT-ONNX is VIOLATED naming them (:func:`annotations_used`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from onnx import TensorProto

from ..base.errors import UnsupportedModelError
from ..model.tensors import TensorType

MEANING: dict[tuple[str, str], int] = {
    ("ModelProto", "opset_import"): 3,
    ("NodeProto", "domain"): 3,
    ("GraphProto", "sparse_initializer"): 6,
    ("ModelProto", "functions"): 8,
    ("TypeProto", "optional_type"): 8,
    ("TypeProto", "sparse_tensor_type"): 8,
    ("FunctionProto", "attribute_proto"): 9,
    ("FunctionProto", "overload"): 10,
    ("FunctionProto", "value_info"): 10,
    ("NodeProto", "overload"): 10,
}
"""(message, field) -> the IR version that introduced it, for the fields whose use changes the model's meaning."""

ANNOTATIONS: dict[tuple[str, str], int] = {
    ("GraphProto", "quantization_annotation"): 5,
    ("ModelProto", "training_info"): 7,
    ("GraphProto", "metadata_props"): 10,
    ("NodeProto", "metadata_props"): 10,
    ("FunctionProto", "metadata_props"): 10,
    ("ModelProto", "configuration"): 11,
    ("NodeProto", "device_configurations"): 11,
}
"""(message, field) -> the IR version that introduced it, for the fields nothing executes."""

ELEMENT_TYPES: dict[int, int] = {
    TensorProto.BFLOAT16: 4,
    TensorProto.FLOAT8E4M3FN: 9,
    TensorProto.FLOAT8E4M3FNUZ: 9,
    TensorProto.FLOAT8E5M2: 9,
    TensorProto.FLOAT8E5M2FNUZ: 9,
    TensorProto.UINT4: 10,
    TensorProto.INT4: 10,
    TensorProto.FLOAT4E2M1: 11,
    TensorProto.FLOAT8E8M0: 12,
    TensorProto.UINT2: 13,
    TensorProto.INT2: 13,
    TensorProto.FLOAT6E2M3: 14,
    TensorProto.FLOAT6E3M2: 14,
}
"""Element type -> the IR version that introduced it (the types not listed exist since IR 1 to 3)."""

_NEWEST_MEANING = max(MEANING.values())
_NEWEST_TYPE = max(ELEMENT_TYPES.values())
NEWEST_ANNOTATION = max(ANNOTATIONS.values())
"""From this IR version on, every annotation field is defined."""


class IrGate:
    """The loader's check that a model uses no field or element type newer than its IR version (:data:`MEANING`)."""

    def __init__(self, ir_version: int, display: str) -> None:
        self.ir = ir_version
        self.display = display

    def _refuse(self, message: str, field: str, where: str) -> None:
        since = MEANING[(message, field)]
        raise UnsupportedModelError(
            f"{self.display}: {where} uses {message}.{field}, which IR version {since} introduced; the model "
            f"declares IR version {self.ir}, which does not define it (sonnx neither honours nor ignores it)"
        )

    def model(self, m: Any) -> None:
        if self.ir >= _NEWEST_MEANING:
            return
        if self.ir < 3 and len(m.opset_import):
            self._refuse("ModelProto", "opset_import", "the model")
        if self.ir < 8 and len(m.functions):
            self._refuse("ModelProto", "functions", "the model")

    def graph(self, msg: Any, where: str) -> None:
        if self.ir < 6 and len(msg.sparse_initializer):
            self._refuse("GraphProto", "sparse_initializer", where)

    def nodes(self, nodes: Any, where: str) -> None:
        if self.ir >= _NEWEST_MEANING:
            return
        for n in nodes:
            if n.overload:
                self._refuse("NodeProto", "overload", f"{where} node {n.name or n.op_type!r}")
            if self.ir < 3 and n.domain:
                self._refuse("NodeProto", "domain", f"{where} node {n.name or n.op_type!r}")

    def function(self, fp: Any) -> None:
        where = f"function {fp.domain}.{fp.name}"
        if self.ir < 9 and len(fp.attribute_proto):
            self._refuse("FunctionProto", "attribute_proto", where)
        if self.ir < 10 and fp.overload:
            self._refuse("FunctionProto", "overload", where)
        if self.ir < 10 and len(fp.value_info):
            self._refuse("FunctionProto", "value_info", where)

    def types(self, types: Iterable[TensorType | None], data_types: Iterable[int]) -> None:
        """The declared types (each distinct one once) and the element types of every tensor value."""
        if self.ir >= max(_NEWEST_MEANING, _NEWEST_TYPE):
            return
        for t in types:
            while t is not None:
                if t.kind == "optional" and self.ir < 8:
                    self._refuse("TypeProto", "optional_type", "a declared type")
                if t.kind == "sparse_tensor" and self.ir < 8:
                    self._refuse("TypeProto", "sparse_tensor_type", "a declared type")
                self._element(t.elem_type, "a declared type")
                t = t.element
        for d in sorted(data_types):
            self._element(d, "a tensor value")

    def _element(self, elem_type: int, where: str) -> None:
        since = ELEMENT_TYPES.get(elem_type)
        if since is not None and since > self.ir:
            name = TensorProto.DataType.Name(elem_type)
            raise UnsupportedModelError(
                f"{self.display}: {where} has element type {name}, which IR version {since} introduced; the "
                f"model declares IR version {self.ir}, which does not define it"
            )


@cache
def _lite_model_class() -> Any:
    """A ``ModelProto`` view that keeps only the annotation fields (everything else is skipped while parsing).

    A node without annotations is then an empty message, two bytes on the
    wire, so one ``ByteSize`` call tells whether any node of a graph has one.
    """
    fdp = descriptor_pb2.FileDescriptorProto(name="sonnx/loader/irfields_lite.proto", package=_LITE, syntax="proto2")
    fd = descriptor_pb2.FieldDescriptorProto
    repeated, optional, blob, sub = fd.LABEL_REPEATED, fd.LABEL_OPTIONAL, fd.TYPE_BYTES, fd.TYPE_MESSAGE
    layout: dict[str, list[tuple[str, int, Any, str | None]]] = {
        "Node": [("metadata_props", 9, repeated, None), ("device_configurations", 10, repeated, None)],
        "Graph": [("node", 1, repeated, "Node"), ("quantization_annotation", 14, repeated, None),
                  ("metadata_props", 16, repeated, None)],
        "Function": [("node", 7, repeated, "Node"), ("metadata_props", 14, repeated, None)],
        "Model": [("ir_version", 1, optional, "int64"), ("graph", 7, optional, "Graph"),
                  ("training_info", 20, repeated, None), ("functions", 25, repeated, "Function"),
                  ("configuration", 26, repeated, None)],
    }
    for name, fields in layout.items():
        msg = fdp.message_type.add(name=name)
        for fname, number, label, kind in fields:
            f = msg.field.add(name=fname, number=number, label=label)
            if kind is None:
                f.type = blob
            elif kind == "int64":
                f.type = fd.TYPE_INT64
            else:
                f.type, f.type_name = sub, f".{_LITE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_LITE}.Model"))


_LITE = "sonnx_private_irfields_lite"


def annotations_clean(data: bytes) -> bool:
    """True when the model bytes surely use no annotation field in its main graph, its functions or itself.

    Graphs nested in attributes are not looked at: a model that has some must
    be read by :func:`annotations_used`.
    """
    m = _lite_model_class().FromString(data)
    m.DiscardUnknownFields()  # what the view does not name was kept as unknown fields; only its fields count
    if len(m.training_info) or len(m.configuration):
        return False
    g = m.graph
    if len(g.quantization_annotation) or len(g.metadata_props) or g.ByteSize() != 2 * len(g.node):
        return False
    return all(not len(f.metadata_props) and f.ByteSize() == 2 * len(f.node) for f in m.functions)


def annotations_used(m: Any) -> list[str]:
    """The :data:`ANNOTATIONS` fields an ``onnx.ModelProto`` uses that its IR version does not define, as text."""
    ir = int(m.ir_version)
    if ir >= NEWEST_ANNOTATION:
        return []
    found: list[str] = []

    def note(message: str, field: str, where: str) -> None:
        since = ANNOTATIONS[(message, field)]
        if ir < since:
            found.append(f"{where}: {message}.{field} (IR {since})")

    if len(m.training_info):
        note("ModelProto", "training_info", "the model")
    if len(m.configuration):
        note("ModelProto", "configuration", "the model")
    graphs: list[tuple[str, Any]] = [("the main graph", m.graph)]
    for fp in m.functions:
        where = f"function {fp.domain}.{fp.name}"
        if len(fp.metadata_props):
            note("FunctionProto", "metadata_props", where)
        graphs.append((where, fp))
    while graphs:
        where, g = graphs.pop()
        if hasattr(g, "quantization_annotation") and len(g.quantization_annotation):
            note("GraphProto", "quantization_annotation", where)
        if hasattr(g, "initializer") and len(g.metadata_props):
            note("GraphProto", "metadata_props", where)
        for n in g.node:
            if len(n.metadata_props):
                note("NodeProto", "metadata_props", f"{where} node {n.name or n.op_type!r}")
            if len(n.device_configurations):
                note("NodeProto", "device_configurations", f"{where} node {n.name or n.op_type!r}")
            for a in n.attribute:
                if a.HasField("g"):
                    graphs.append((f"{where} node {n.name or n.op_type!r} attribute {a.name!r}", a.g))
                graphs.extend((f"{where} node {n.name or n.op_type!r} attribute {a.name!r}", s) for s in a.graphs)
    return found


def stated_ir_version(data: bytes) -> int | None:
    """The IR version the model bytes state (``ModelProto.ir_version``, field 1; the last one when repeated, as
    protobuf reads it), read from the top level of the message alone; None when none is stated or the top level
    does not read as protobuf. Nothing below the top level is parsed: the graph is skipped by its length."""
    pos, end, found = 0, len(data), None
    while pos < end:
        key, pos = _varint(data, pos)
        if key is None:
            return None
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            if value is None:
                return None
            if number == 1:
                found = value - (1 << 64) if value >= 1 << 63 else value
        elif wire == 2:
            length, pos = _varint(data, pos)
            if length is None:
                return None
            pos += length
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            return None
    return found if pos == end else None


def _varint(data: bytes, pos: int) -> tuple[int | None, int]:
    """The base-128 varint at ``pos`` and the position after it; None when the bytes end first or it runs over
    ten bytes."""
    value = shift = 0
    for k in range(10):
        if pos + k >= len(data):
            return None, pos
        byte = data[pos + k]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value & ((1 << 64) - 1), pos + k + 1
        shift += 7
    return None, pos
