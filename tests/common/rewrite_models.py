"""Small ONNX models for the rewrite tests, built with onnx.helper and loaded through the sonnx loader."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sonnx.loader import load_model
from sonnx.model.graph import Model, Operation

F = TensorProto.FLOAT


def vi(name: str, shape: Sequence[int] | None, elem: int = F) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, None if shape is None else list(shape))


def init(name: str, value: Any, dtype: Any = np.int64) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def build(
    tmp: Path,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    inits: Sequence[onnx.TensorProto] = (),
    opset: int = 17,
    ir: int = 8,
    value_info: Sequence[onnx.ValueInfoProto] = (),
    name: str = "m.onnx",
) -> Path:
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    path = tmp / name
    onnx.save(m, str(path))
    return path


def load(path: Path) -> Model:
    return load_model(str(path))


def op(model: Model, operator: str) -> Operation:
    return next(o for o in model.graph.operations if o.operator == operator)


def operators(model: Model) -> list[str]:
    return [o.operator for o in model.graph.operations]


def value(model: Model, name: str) -> list:
    """The initial value of ``name`` as a nested list (the test fails if there is none)."""
    iv = model.graph.tensors[name].initial_value
    assert iv is not None, name
    return np.asarray(iv.read()).tolist()


def attr(operation: Operation, name: str) -> Any:
    a = operation.attribute(name)
    assert a is not None, name
    return a.value
