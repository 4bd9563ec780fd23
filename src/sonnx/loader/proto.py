"""Shallow protobuf classes for reading ONNX files of any nesting depth.

Why: the installed protobuf backend (upb) refuses to decode a message nested
more than 100 levels deep, and an ONNX model nests one level of messages per
``If``/``Loop``/``Scan`` body (``AttributeProto.g`` holds a whole
``GraphProto``). A model with 2,000 nested ``If`` bodies is well formed, so
the loader must read it.

What: at import time this module copies ONNX's own schema
(``onnx.ModelProto.DESCRIPTOR.file``), moves it to a private package, and
changes the two fields that hold nested graphs, ``AttributeProto.g`` (field 6)
and ``AttributeProto.graphs`` (field 11), from ``GraphProto`` messages to
``bytes``. The wire format of a length-delimited message and of ``bytes`` is
the same, so a file parses unchanged; a nested graph simply stays undecoded
until the loader decodes it on its own work stack with :data:`GraphProto`.

Two further changes make the classes safer than ONNX's:

* the file is restated in protobuf *editions* syntax with proto2 behaviour
  (explicit presence, closed enums, expanded repeated fields), so that
* every ``string`` field except ``doc_string`` is checked to be valid UTF-8
  while parsing. ONNX's schema is proto2, whose strings upb does not check; it
  hands back ``bytes`` for an invalid name, which would break every later
  comparison of names. A file with such a name is rejected as malformed
  (``DecodeError`` at parse time); a ``doc_string`` is free text and is
  decoded leniently by :func:`text`.

The classes are registered in a private :class:`DescriptorPool`, so they never
clash with ``onnx``'s own classes in the default pool.
"""

from __future__ import annotations

from typing import Any

import onnx
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_PACKAGE = "sonnx_private_shallow_onnx"
_NESTED_GRAPH_FIELDS = {("AttributeProto", 6), ("AttributeProto", 11)}
_LENIENT_STRING_FIELDS = {"doc_string"}


def _shallow_file() -> descriptor_pb2.FileDescriptorProto:
    """ONNX's schema, renamed, in editions syntax, with nested graphs as ``bytes``."""
    fdp = descriptor_pb2.FileDescriptorProto()
    onnx.ModelProto.DESCRIPTOR.file.CopyToProto(fdp)
    old_prefix = "." + fdp.package + "."
    new_prefix = "." + _PACKAGE + "."
    fdp.name = "sonnx/loader/" + _PACKAGE + ".proto"
    fdp.package = _PACKAGE
    fdp.ClearField("options")
    fdp.syntax = "editions"
    fdp.edition = descriptor_pb2.EDITION_2023
    feats = fdp.options.features
    feats.field_presence = descriptor_pb2.FeatureSet.EXPLICIT
    feats.enum_type = descriptor_pb2.FeatureSet.CLOSED
    feats.repeated_field_encoding = descriptor_pb2.FeatureSet.EXPANDED
    feats.utf8_validation = descriptor_pb2.FeatureSet.VERIFY
    feats.message_encoding = descriptor_pb2.FeatureSet.LENGTH_PREFIXED
    feats.json_format = descriptor_pb2.FeatureSet.LEGACY_BEST_EFFORT

    # Walk every message type, nested ones included, with an explicit stack.
    pending: list[Any] = list(fdp.message_type)
    while pending:
        msg = pending.pop()
        pending.extend(msg.nested_type)
        for f in msg.field:
            if f.type_name.startswith(old_prefix):
                f.type_name = new_prefix + f.type_name[len(old_prefix) :]
            if f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REQUIRED:
                # Editions spell proto2 'required' as a presence feature.
                f.label = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
                f.options.features.field_presence = descriptor_pb2.FeatureSet.LEGACY_REQUIRED
            if f.options.HasField("packed"):
                packed = f.options.packed
                f.options.ClearField("packed")
                if packed:
                    f.options.features.repeated_field_encoding = descriptor_pb2.FeatureSet.PACKED
            if f.type == descriptor_pb2.FieldDescriptorProto.TYPE_STRING and f.name in _LENIENT_STRING_FIELDS:
                f.options.features.utf8_validation = descriptor_pb2.FeatureSet.NONE
            if (msg.name, f.number) in _NESTED_GRAPH_FIELDS:
                f.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
                f.ClearField("type_name")
    return fdp


def _build() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    fd = pool.Add(_shallow_file())
    del fd
    classes: dict[str, Any] = {}
    for name in ("ModelProto", "GraphProto", "FunctionProto", "TensorProto", "AttributeProto"):
        desc = pool.FindMessageTypeByName(f"{_PACKAGE}.{name}")
        classes[name] = message_factory.GetMessageClass(desc)
    # Check the one property everything relies on: nested graphs are bytes.
    attr = classes["AttributeProto"].DESCRIPTOR
    for fname in ("g", "graphs"):
        if attr.fields_by_name[fname].type != attr.fields_by_name[fname].TYPE_BYTES:
            raise RuntimeError(f"sonnx.loader.proto: AttributeProto.{fname} is not bytes in the shallow schema")
    return classes


_CLASSES = _build()

ModelProto: Any = _CLASSES["ModelProto"]
"""Shallow ``onnx.ModelProto``: nested graphs inside attributes stay ``bytes``."""
GraphProto: Any = _CLASSES["GraphProto"]
"""Shallow ``onnx.GraphProto``, used to decode one nested graph at a time."""
FunctionProto: Any = _CLASSES["FunctionProto"]
"""Shallow ``onnx.FunctionProto``."""

# Numbers of AttributeProto.AttributeType (the same in the shallow schema).
ATTRIBUTE_TYPE_NAMES: dict[int, str] = {
    int(v): k for k, v in onnx.AttributeProto.AttributeType.items()
}
"""ONNX attribute type number -> name (``1`` -> ``"FLOAT"``...)."""

EXTERNAL = int(onnx.TensorProto.EXTERNAL)
"""``TensorProto.DataLocation.EXTERNAL``."""


def decode_detail(error: Exception) -> str:
    """The useful part of a protobuf ``DecodeError`` message, on one line, without our private type names."""
    message = " ".join(str(error).split())
    if message.startswith("Error parsing message") and ": " in message:
        message = message.rsplit(": ", 1)[1]
    return message or "protobuf decoding failed"


def text(value: Any) -> str:
    """A free-text field (``doc_string``) as ``str``; invalid UTF-8 is kept with ``surrogateescape``.

    upb returns ``bytes`` for a proto2 string that is not valid UTF-8; only the
    ``doc_string`` fields are left unchecked, and this turns them into text.
    """
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)
