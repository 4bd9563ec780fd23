"""The model as an ONNX file again: the inverse of the loader, for rewrites and partitions.

``sonnx rewrite`` and ``sonnx partition`` build new :class:`~sonnx.model.Model`
values and must hand them back to other tools as ONNX. :func:`to_proto` maps
each part of the model to its protobuf message (graph, nested graphs,
declared tensors and their types, initializers, attributes, model-local
functions, metadata); :func:`save_model` writes the bytes atomically (a
temporary file in the target folder, then a rename), so a failed write never
leaves a half-written model behind.

What is not kept, on purpose (each is stated, not silent):

* functions are written as the model holds them: the main graph has the
  calls already inlined by the loader, and :attr:`Model.functions` keeps the
  definitions (still valid ONNX, and the same meaning);
* sparse initializers are written dense (same values);
* every initializer is embedded in the file (external data is not re-split);
  a model whose weights were not read (``--structure-only``) cannot be written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, TypeProto, numpy_helper

from ..base.errors import SonnxError
from ..base.files import WriteError, write_atomically
from ..model.graph import Attribute, Function, Graph, InitialValue, Model, Operation, TensorType
from .attributes import REF

MAX_NESTING = 90
"""Deepest nesting of graphs written: protobuf's parsers refuse messages nested beyond 100 levels
(a graph in an attribute in a node costs three), so a deeper model could be written but not read back."""


_STANDARD_METADATA = ("producer_name", "producer_version", "domain", "model_version", "doc_string")


def _type_proto(t: TensorType) -> TypeProto:
    tp = TypeProto()
    if t.kind in ("tensor", "sparse_tensor"):
        target = tp.tensor_type if t.kind == "tensor" else tp.sparse_tensor_type
        target.elem_type = t.elem_type
        if t.shape is not None:
            shape = target.shape
            shape.SetInParent()
            for d in t.shape:
                dim = shape.dim.add()
                if isinstance(d, int):
                    dim.dim_value = d
                elif isinstance(d, str):
                    dim.dim_param = d
    elif t.kind in ("sequence", "optional"):
        holder = tp.sequence_type if t.kind == "sequence" else tp.optional_type
        holder.SetInParent()
        if t.element is not None:
            holder.elem_type.CopyFrom(_type_proto(t.element))
    elif t.kind == "map":
        tp.map_type.SetInParent()
        tp.map_type.key_type = t.elem_type
        if t.element is not None:
            tp.map_type.value_type.CopyFrom(_type_proto(t.element))
    else:
        raise WriteError(f"a tensor of kind {t.kind!r} cannot be written by this version")
    return tp


def _array(iv: InitialValue, name: str) -> np.ndarray:
    try:
        value = iv.read()
    except SonnxError as exc:
        raise WriteError(f"initial value of {name!r} cannot be read: {exc.one_line()}") from None
    return np.asarray(value)


def _tensor_proto(iv: InitialValue, name: str) -> onnx.TensorProto:
    arr = _array(iv, name)
    try:
        tp = numpy_helper.from_array(arr, name)
    except (TypeError, ValueError) as exc:
        raise WriteError(f"initial value of {name!r} (dtype {arr.dtype}) cannot be written: {exc}") from None
    if tp.data_type != iv.data_type:
        # numpy_helper infers the element type from the array; keep the declared one when they differ in name only
        tp = onnx.helper.make_tensor(name, iv.data_type, arr.shape, arr.flatten().tolist())
    return tp


class _Writer:
    """Writes one model; knows whether its weights were read."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def attribute(self, a: Attribute, depth: int) -> AttributeProto:
        p = AttributeProto()
        p.name = a.name
        v = a.value
        if a.type == REF:
            p.ref_attr_name = v.name
            p.type = getattr(AttributeProto, v.type)
            return p
        p.type = getattr(AttributeProto, a.type)
        if a.type == "FLOAT":
            p.f = v
        elif a.type == "INT":
            p.i = v
        elif a.type == "STRING":
            p.s = v.encode("utf-8", "surrogateescape")
        elif a.type == "FLOATS":
            p.floats.extend(v)
        elif a.type == "INTS":
            p.ints.extend(v)
        elif a.type == "STRINGS":
            p.strings.extend(s.encode("utf-8", "surrogateescape") for s in v)
        elif a.type == "TENSOR":
            p.t.CopyFrom(_tensor_proto(v, ""))
        elif a.type == "TENSORS":
            p.tensors.extend(_tensor_proto(x, "") for x in v)
        elif a.type == "GRAPH":
            p.g.CopyFrom(self.graph(v, depth + 1))
        elif a.type == "GRAPHS":
            p.graphs.extend(self.graph(g, depth + 1) for g in v)
        elif a.type == "TYPE_PROTO":
            p.tp.CopyFrom(_type_proto(v))
        elif a.type == "TYPE_PROTOS":
            p.type_protos.extend(_type_proto(t) for t in v)
        else:
            raise WriteError(f"attribute {a.name!r} of type {a.type} cannot be written by this version")
        return p

    def node(self, op: Operation, depth: int) -> NodeProto:
        n = NodeProto()
        n.op_type = op.operator
        n.domain = op.domain
        n.name = op.name
        n.input.extend(op.input_mapping)
        n.output.extend(op.output_mapping)
        n.attribute.extend(self.attribute(a, depth) for a in op.attributes)
        return n

    def graph(self, g: Graph, depth: int) -> GraphProto:
        if depth > MAX_NESTING:
            raise WriteError(f"graphs are nested more than {MAX_NESTING} deep; ONNX readers refuse such a file")
        gp = GraphProto()
        gp.name = g.name
        gp.node.extend(self.node(op, depth) for op in g.operations)
        roles = set(g.inputs) | set(g.outputs)
        for name in g.inputs:
            gp.input.append(self._value_info(g, name))
        for name in g.outputs:
            gp.output.append(self._value_info(g, name))
        for name in sorted(g.tensors):
            t = g.tensors[name]
            if t.initial_value is not None:
                if not self.model.weights_loaded:
                    raise WriteError("the model was loaded for structure only; its weights cannot be written")
                gp.initializer.append(_tensor_proto(t.initial_value, name))
            elif name not in roles and t.type is not None:
                gp.value_info.append(self._value_info(g, name))
        return gp

    def _value_info(self, g: Graph, name: str) -> onnx.ValueInfoProto:
        vi = onnx.ValueInfoProto()
        vi.name = name
        t = g.tensor(name).type
        if t is not None:
            vi.type.CopyFrom(_type_proto(t))
        return vi

    def function(self, f: Function) -> FunctionProto:
        fp = FunctionProto()
        fp.domain = f.domain
        fp.name = f.name
        if f.overload:
            fp.overload = f.overload
        fp.input.extend(f.body.inputs)
        fp.output.extend(f.body.outputs)
        fp.node.extend(self.node(op, 1) for op in f.body.operations)
        defaults = {a.name for a in f.attribute_defaults}
        fp.attribute.extend(n for n in f.attribute_names if n not in defaults)
        fp.attribute_proto.extend(self.attribute(a, 1) for a in f.attribute_defaults)
        fp.opset_import.extend(_opsets(f.opset_imports))
        return fp


def _opsets(imports: Mapping[str, int]) -> Sequence[onnx.OperatorSetIdProto]:
    return [onnx.helper.make_opsetid(domain, version) for domain, version in sorted(imports.items())]


def to_proto(model: Model) -> ModelProto:
    """The ONNX ``ModelProto`` of ``model`` (see the module docstring for what is normalised)."""
    w = _Writer(model)
    mp = ModelProto()
    mp.ir_version = model.ir_version
    mp.opset_import.extend(_opsets(model.opset_imports))
    meta = dict(model.metadata)
    mp.producer_name = meta.get("producer_name", "") or "sonnx"
    mp.producer_version = meta.get("producer_version", "")
    mp.domain = meta.get("domain", "")
    mp.model_version = int(meta.get("model_version", "0") or 0)
    mp.doc_string = meta.get("doc_string", "")
    for key in sorted(k for k in meta if k not in _STANDARD_METADATA):
        entry = mp.metadata_props.add()
        entry.key = key.removeprefix("metadata_props:")
        entry.value = meta[key]
    mp.graph.CopyFrom(w.graph(model.graph, 0))
    mp.functions.extend(w.function(f) for f in model.functions)
    return mp


def model_bytes(model: Model) -> bytes:
    """The bytes of the ONNX file :func:`save_model` writes for ``model``.

    Also what a model held by no file is derived from (:mod:`.derived`): the
    types onnx derives for it are then those of the file it would be written as. A model over
    protobuf's 2 GiB limit is a :class:`WriteError`.
    """
    proto = to_proto(model)
    try:
        return proto.SerializeToString()
    except ValueError as exc:  # protobuf refuses a message over 2 GiB
        raise WriteError(f"the model cannot be serialized: {' '.join(str(exc).split())}") from None


def save_model(model: Model, path: str) -> None:
    """Write ``model`` to ``path`` as ONNX, atomically (nothing is left behind on failure)."""
    data = model_bytes(model)
    write_atomically(path, lambda fh: fh.write(data))
