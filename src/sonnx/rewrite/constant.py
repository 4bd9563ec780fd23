"""Constant to initializer: the tensor a Constant operation produces becomes an initializer of that name.

Theorem ``rewrite_constant``: an operation without inputs that always
produces the same value, and an initializer holding that value, give every
reader the same value. Precondition: the model's IR version is at least 4
(before it, every initializer had to be a graph input, which a caller may
override), the value is dense (``sparse_value`` is refused), and exactly one
value attribute is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from ..model.graph import InitialValue, Model, Operation, Tensor, TensorType
from .base import Pass, array_value, rebuild, standard_form, with_graph

_KINDS = ("value", "value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings")


def _value(op: Operation) -> tuple[InitialValue, TensorType] | str:
    given = [a for a in op.attributes if a.name in (*_KINDS, "sparse_value")]
    if len(given) != 1:
        return f"Constant has {len(given)} value attributes (exactly one is required)"
    a = given[0]
    if a.name == "sparse_value":
        return "sparse_value is not turned into an initializer (sonnx handles dense tensors only)"
    if a.name == "value":
        iv = a.value
        if not isinstance(iv, InitialValue) or iv.sparse:
            return "the value attribute is not a dense tensor"
        return iv, TensorType("tensor", iv.data_type, tuple(iv.dims))
    arr: Any
    if a.name == "value_float":
        arr, dt = np.array(a.value, dtype=np.float32), TensorProto.FLOAT
    elif a.name == "value_floats":
        arr, dt = np.array(list(a.value), dtype=np.float32).reshape(-1), TensorProto.FLOAT
    elif a.name == "value_int":
        arr, dt = np.array(a.value, dtype=np.int64), TensorProto.INT64
    elif a.name == "value_ints":
        arr, dt = np.array(list(a.value), dtype=np.int64).reshape(-1), TensorProto.INT64
    elif a.name == "value_string":
        arr, dt = np.array(a.value, dtype=np.object_), TensorProto.STRING
    else:
        arr = np.empty(len(a.value), dtype=np.object_)
        arr[:] = list(a.value)
        dt = TensorProto.STRING
    return array_value(arr, dt), TensorType("tensor", dt, tuple(arr.shape))


class ConstantToInitializer(
    Pass, name="constant", title="Constant to initializer", operators=("Constant",), theorem="rewrite_constant"
):
    def requires(self, model: Model, op: Operation) -> str | None:
        why = standard_form(op)
        if why is not None:
            return why
        if model.ir_version < 4:
            return f"IR version {model.ir_version} < 4: initializers must be graph inputs, which callers can override"
        if op.output_mapping[0] in model.graph.inputs:
            return "the output name is also a graph input"
        got = _value(op)
        return got if isinstance(got, str) else None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        g = model.graph
        got = _value(op)
        assert not isinstance(got, str)
        iv, ty = got
        name = op.output_mapping[0]
        tensors = dict(g.tensors)
        old = tensors.get(name)
        declared = old.type if old is not None and old.type is not None else ty
        tensors[name] = (old or Tensor(name))._replace(type=declared, initial_value=iv)
        ops = [o for o in g.operations if o is not op]
        return with_graph(model, rebuild(g, ops, tensors)), f"{name!r} is now an initializer {list(ty.shape or ())}"
