"""Removing from a model the declarations that no runtime enforces, before onnx's shape inference runs on it.

onnx's shape inference merges what it infers with the types a file declares,
and a later operation then sees the declared shape: a ``value_info`` entry
that claims 3 rows for a tensor of 2 makes every shape inferred from it claim
3 too. Measured on onnxruntime 1.32 and onnx's reference evaluator (spec,
section "What a PROVED rests on"), neither checks the rank or the sizes
declared for an intermediate tensor, a graph output, or the inputs and
outputs of a nested graph, and neither checks that two dimensions bearing the
same symbolic name have one size. Types and shapes inferred after :func:`drop_unenforced`
therefore rest only on facts that hold at run time: the main graph's inputs as
onnxruntime enforces them (element type, rank, fixed sizes), initial values,
``Constant`` values, and onnx's operator schemas.

What it does to a ``ModelProto``, in place, in every graph (nested graphs and
model-local function bodies included):

* ``value_info`` is emptied (and a function's ``value_info``);
* the types of graph outputs, and of the inputs of nested graphs, are
  removed: inference gives them again from the operations that compute them
  and from the operands of the operation that runs the nested graph
  (onnxruntime checks a declared element type against its own inference, the
  reference evaluator checks none);
* in the main graph's inputs, a symbolic dimension name used at more than one
  place is replaced at each place by a name of its own, ``NAME@input[axis]``,
  so that inference cannot equate two sizes that no runtime makes equal.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from onnx import AttributeProto

PLACE = "{name}@{input}[{axis}]"
"""The name a shared symbolic dimension gets at one place of one main-graph input."""


def _tensor_types(tp: Any) -> list[Any]:
    """The tensor and sparse tensor types inside a ``TypeProto`` (through sequences, optionals and maps)."""
    found: list[Any] = []
    stack = [tp]
    while stack:
        cur = stack.pop()
        which = cur.WhichOneof("value")
        if which == "tensor_type":
            found.append(cur.tensor_type)
        elif which == "sparse_tensor_type":
            found.append(cur.sparse_tensor_type)
        elif which == "sequence_type" and cur.sequence_type.HasField("elem_type"):
            stack.append(cur.sequence_type.elem_type)
        elif which == "optional_type" and cur.optional_type.HasField("elem_type"):
            stack.append(cur.optional_type.elem_type)
        elif which == "map_type" and cur.map_type.HasField("value_type"):
            stack.append(cur.map_type.value_type)
    return found


def _drop_types(infos: Any) -> None:
    for info in infos:
        info.ClearField("type")


def _nested(nodes: Any) -> list[Any]:
    """The graphs held by the attributes of ``nodes``."""
    out: list[Any] = []
    for node in nodes:
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                out.append(a.g)
            elif a.type == AttributeProto.GRAPHS:
                out.extend(a.graphs)
    return out


def _separate_symbols(graph: Any) -> None:
    """Give every place of a symbolic name shared by several dimensions of the main graph's inputs its own name."""
    places: Counter[str] = Counter()
    for info in graph.input:
        for tt in _tensor_types(info.type):
            places.update(d.dim_param for d in tt.shape.dim if d.WhichOneof("value") == "dim_param")
    shared = {name for name, n in places.items() if n > 1}
    if not shared:
        return
    for info in graph.input:
        for tt in _tensor_types(info.type):
            for axis, d in enumerate(tt.shape.dim):
                if d.WhichOneof("value") == "dim_param" and d.dim_param in shared:
                    d.dim_param = PLACE.format(name=d.dim_param, input=info.name, axis=axis)


def drop_unenforced(model: Any) -> None:
    """Remove from ``model`` (a ``ModelProto``) every declaration no runtime enforces (see the module text)."""
    main = model.graph
    _separate_symbols(main)
    stack: list[tuple[Any, bool]] = [(main, True)]
    for f in model.functions:
        del f.value_info[:]
        stack.extend((g, False) for g in _nested(f.node))
    while stack:
        graph, is_main = stack.pop()
        del graph.value_info[:]
        _drop_types(graph.output)
        if not is_main:
            _drop_types(graph.input)
        stack.extend((g, False) for g in _nested(graph.node))
