"""Shape to constant, under static shapes: the output of a Shape operation becomes an initializer.

Theorem ``rewrite_shape``: for an input of rank r and a declared static
shape, the constant is ``dims[lo:hi]`` with ``lo``/``hi`` the Shape-15
``start``/``end`` normalised (a negative value counts from the back) and
clamped to [0, r]; the theorem proves, for every rank and every start and
end, that the clamped bounds index the shape within range and give
``max(hi - lo, 0)`` elements. Before opset 15 the whole shape is taken.

Precondition: the input's declared type gives every dimension as a fixed
size (the seed's assumption of static shapes, which the model must state);
the output is not a graph input; the model's IR version is at least 4. The
declared shape is a claim of the model file: translation validation runs
both models and so checks it on the seeded inputs.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from ..model.graph import Model, Operation, Tensor
from .base import (
    Pass,
    ai_onnx_opset,
    array_value,
    prune,
    rebuild,
    standard_form,
    static_shape,
    tensor_type_of,
    with_graph,
)


def shape_slice(rank: int, start: int, end: int | None) -> tuple[int, int]:
    """Shape-15 bounds: negative counts from the back, then clamped to [0, rank] (proved in rewrite_shape)."""

    def clamp(k: int) -> int:
        k = k + rank if k < 0 else k
        return min(max(k, 0), rank)

    return clamp(start), rank if end is None else clamp(end)


class ShapeToConstant(
    Pass, name="shape", title="Shape to constant (static shapes)", operators=("Shape",), theorem="rewrite_shape"
):
    def requires(self, model: Model, op: Operation) -> str | None:
        g = model.graph
        why = standard_form(op)
        if why is not None:
            return why
        if model.ir_version < 4:
            return f"IR version {model.ir_version} < 4: initializers must be graph inputs"
        if op.output_mapping[0] in g.inputs:
            return "the output name is also a graph input"
        if not op.input_mapping or not op.input_mapping[0]:
            return "Shape without its input"
        if static_shape(g, op.input_mapping[0]) is None:
            return f"the shape of {op.input_mapping[0]!r} is not declared static"
        return None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        g = model.graph
        dims = static_shape(g, op.input_mapping[0])
        assert dims is not None
        start, end = 0, None
        if ai_onnx_opset(model) >= 15:
            a, b = op.attribute("start"), op.attribute("end")
            start = int(a.value) if a is not None else 0
            end = int(b.value) if b is not None else None
        lo, hi = shape_slice(len(dims), start, end)
        value = np.array([dims[k] for k in range(lo, hi)], dtype=np.int64)
        name = op.output_mapping[0]
        tensors = dict(g.tensors)
        old = tensors.get(name) or Tensor(name)
        tensors[name] = old._replace(
            type=old.type or tensor_type_of(value, TensorProto.INT64),
            initial_value=array_value(value, TensorProto.INT64),
        )
        ops = [o for o in g.operations if o is not op]
        return with_graph(model, prune(rebuild(g, ops, tensors))), f"{name!r} is now the constant {value.tolist()}"
