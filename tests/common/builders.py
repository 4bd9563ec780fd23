"""Builders of small ONNX models for the tests (the loader tests import them as ``tests.loader.builders``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


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


def shifted_qdq(shift: int) -> onnx.ModelProto:
    """x + shift * 0.25, quantized to int8 with scale 0.25 and dequantized: ``shift`` steps from ``shifted_qdq(0)``."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    inits = [numpy_helper.from_array(np.asarray(v, dtype=t), n)
             for n, v, t in (("s", 0.25, np.float32), ("z", 0, np.int8), ("d", 0.25 * shift, np.float32))]
    nodes = [
        helper.make_node("Add", ["x", "d"], ["a"]),
        helper.make_node("QuantizeLinear", ["a", "s", "z"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dq"),
    ]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m
