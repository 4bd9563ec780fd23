"""Builders of small ONNX models for the loader tests (imported as ``tests.loader.builders``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import onnx
from onnx import TensorProto, helper


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    *,
    initializers: Sequence[onnx.TensorProto] = (),
    value_info: Sequence[onnx.ValueInfoProto] = (),
    functions: Sequence[onnx.FunctionProto] = (),
    ir_version: int = 9,
    opsets: Sequence[tuple[str, int]] = (("", 17),),
    name: str = "main",
    **graph_kwargs: Any,
) -> onnx.ModelProto:
    """A model around one graph, with explicit IR version and opsets (no checker, on purpose)."""
    g = helper.make_graph(
        list(nodes), name, list(inputs), list(outputs), initializer=list(initializers), value_info=list(value_info),
        **graph_kwargs,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = ir_version
    m.functions.extend(functions)
    return m


def fvi(name: str, shape: Sequence[Any] | None = (1,), elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    """A tensor value info (float, shape ``[1]`` by default)."""
    return helper.make_tensor_value_info(name, elem, shape)
