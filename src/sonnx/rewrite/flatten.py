"""Flatten to Reshape: ``Flatten(axis=a)`` becomes ``Reshape`` to ``[prod(d[:a]), prod(d[a:])]``.

Theorem ``rewrite_flatten``: for every rank r, every axis a in [-r, r]
(normalised to a + r when negative) and every shape, the two products
multiply to the element count, and Flatten and Reshape, which both keep the
row-major order of the elements, then give the same tensor. The seed's
formula is right for a positive axis; two points it leaves open:

* a negative axis (opset 11 on) must be normalised before the products;
* a zero-sized dimension makes a product 0, and Reshape reads a 0 in its
  shape as "copy the input's dimension" unless ``allowzero`` = 1. The proof
  finds the counterexample (input [2, 0, 3], axis 2: Flatten gives [0, 3],
  Reshape to [0, 3] gives [2, 3] and fails); the pass sets ``allowzero`` = 1
  when a product is 0, which needs opset 14, and refuses otherwise.

Precondition: the input's shape is declared static; opset >= 5 (Reshape
with a shape input).
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from ..model.graph import Attribute, Model, Operation, Tensor
from .base import (
    Pass,
    ai_onnx_opset,
    array_value,
    fresh_name,
    rebuild,
    standard_form,
    static_shape,
    tensor_type_of,
    with_graph,
)


def flatten_shape(dims: tuple[int, ...], axis: int) -> tuple[int, int]:
    """The two sizes of Flatten's output (axis already checked to lie in [-r, r])."""
    a = axis + len(dims) if axis < 0 else axis
    return int(np.prod(dims[:a], dtype=np.int64)), int(np.prod(dims[a:], dtype=np.int64))


class FlattenToReshape(
    Pass, name="flatten", title="Flatten to Reshape", operators=("Flatten",), theorem="rewrite_flatten"
):
    def _axis(self, op: Operation) -> int:
        a = op.attribute("axis")
        return int(a.value) if a is not None else 1

    def requires(self, model: Model, op: Operation) -> str | None:
        g = model.graph
        why = standard_form(op, first_input="input")
        if why is not None:
            return why
        opset = ai_onnx_opset(model)
        if opset < 5:
            return f"opset {opset} < 5: Reshape takes its shape as an attribute there"
        dims = static_shape(g, op.input_mapping[0])
        if dims is None:
            return f"the shape of {op.input_mapping[0]!r} is not declared static"
        r, axis = len(dims), self._axis(op)
        low = -r if opset >= 11 else 0
        if not low <= axis <= r:
            return f"axis {axis} outside [{low}, {r}]"
        rows, cols = flatten_shape(dims, axis)
        if (rows == 0 or cols == 0) and opset < 14:
            return "a product is 0 and Reshape before opset 14 reads 0 as 'copy the input dimension' (no allowzero)"
        return None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        g = model.graph
        dims = static_shape(g, op.input_mapping[0])
        assert dims is not None
        rows, cols = flatten_shape(dims, self._axis(op))
        shape = np.array([rows, cols], dtype=np.int64)
        shape_name = fresh_name(g, f"{op.output_mapping[0]}__shape")
        attrs: tuple[Attribute, ...] = ()
        if rows == 0 or cols == 0:
            attrs = (Attribute("allowzero", "INT", 1),)
        new = Operation("Reshape", "", op.name, (op.input_mapping[0], shape_name), op.output_mapping, attrs)
        tensors = dict(g.tensors)
        tensors[shape_name] = Tensor(
            shape_name, tensor_type_of(shape, TensorProto.INT64), array_value(shape, TensorProto.INT64)
        )
        ops = [new if o is op else o for o in g.operations]
        extra = " (allowzero = 1)" if attrs else ""
        return with_graph(model, rebuild(g, ops, tensors)), f"Reshape to [{rows}, {cols}]{extra}"
