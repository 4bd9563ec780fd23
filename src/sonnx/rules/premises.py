"""What is established, at run time, about a tensor's element type and dimensions (spec 9.4, "What a PROVED rests on").

A declared type is a claim of the model file; only some of those claims are
checked by the runtimes (measured on onnxruntime 1.32 and onnx's reference
evaluator, spec 9.4). A verdict of PROVED may rest on:

* the main graph's inputs: their declared element type, rank and fixed sizes,
  which onnxruntime refuses a call to break (a symbolic name is not a size:
  no runtime checks that two places bearing the same name agree);
* a tensor with an initial value that is not a graph input: the element type
  and dimensions of the stored value (a ``value_info`` entry that says
  otherwise is ignored by both runtimes);
* the output of a ``Constant`` of the default domain whose ``value`` is a
  tensor: that tensor's element type and dimensions.

Nothing else is trusted: the declaration of an intermediate tensor
(``value_info``), of a graph output, or of a nested graph's input is not a
fact about the value a runtime computes (onnxruntime ignores declared ranks
and sizes there, and the reference evaluator every declaration), and neither
is a name assigned more than once. Both engines of GRAPH-R2 read tensors'
types through :func:`runtime_type`, a trusted function they share, like the
determinism table.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.graph import Graph, Operation


class RuntimeType(NamedTuple):
    """What holds of a tensor's value at run time: element type (0 not established), dimensions, or why not.

    ``dims`` is None when the rank is not established; a dimension is None
    when its size is not. ``why`` says what is missing (empty when both are
    fully established).
    """

    elem_type: int
    dims: tuple[int | None, ...] | None
    why: str


def _unknown(why: str) -> RuntimeType:
    return RuntimeType(0, None, why)


def runtime_type(g: Graph, name: str, main: bool, writers: list[Operation]) -> RuntimeType:
    """The established type of tensor ``name`` of graph ``g`` (``main``: the model's main graph).

    ``writers`` are the operations of ``g`` that write ``name``. A name that
    ``g`` does not define itself (a value of an enclosing graph) is not
    followed: its type is not established here.
    """
    if not name:
        return _unknown("the input is omitted")
    if len(writers) > 1:
        return _unknown(f"{name!r} is assigned more than once")
    t = g.tensors.get(name)
    if not writers:
        if name in g.inputs:
            if not main:
                return _unknown(
                    f"{name!r} is an input of a nested graph, whose declared type no runtime is known to enforce"
                )
            ty = t.type if t is not None else None
            if ty is None or ty.kind != "tensor":
                return _unknown(f"graph input {name!r} declares no tensor type")
            missing = [] if ty.elem_type else ["no element type"]
            dims = None if ty.shape is None else tuple(d if isinstance(d, int) and d >= 0 else None for d in ty.shape)
            if dims is None:
                missing.append("no rank")
            elif None in dims:
                missing.append("a dimension that is not a fixed size (a symbolic name is checked by no runtime)")
            why = f"graph input {name!r} declares {' and '.join(missing)}" if missing else ""
            return RuntimeType(ty.elem_type, dims, why)
        if t is not None and t.initial_value is not None:
            iv = t.initial_value
            return RuntimeType(iv.data_type, tuple(iv.dims), "")
        return _unknown(f"{name!r} is not defined in its own graph")
    producer = writers[0]
    value = producer.attribute("value")
    if producer.operator == "Constant" and producer.domain == "" and value is not None and value.type == "TENSOR":
        return RuntimeType(value.value.data_type, tuple(value.value.dims), "")
    return _unknown(
        f"{name!r} is computed by {producer.label}, and a declared type of a computed tensor "
        "(value_info, graph output) is enforced by no runtime"
    )
