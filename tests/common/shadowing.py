"""Models whose local functions take (or do not take) a standard operator's name, written as ONNX files.

The two models of the function-shadowing report (``ai.onnx::Relu`` with a ``Neg`` body,
``ai.onnx::RandomNormalLike`` with an ``Identity`` body), the same calls reached through a function of a
custom domain (nested), and the controls: a custom-domain function of a standard name, and a function
named after an operator ONNX only adds in a later opset than the model imports (``Gelu``, opset 20).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import onnx
from onnx import TensorProto, helper

OPSET = 17


def local_function(
    domain: str, name: str, body: Sequence[onnx.NodeProto], inputs: Sequence[str] = ("x",),
    outputs: Sequence[str] = ("y",), attributes: Sequence[str] = (), opset: int = OPSET,
    imports: Sequence[tuple[str, int]] = (),
) -> onnx.FunctionProto:
    ops = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, v) for d, v in imports)]
    return helper.make_function(domain, name, list(inputs), list(outputs), list(body), ops, list(attributes))


def one_call(
    fn: onnx.FunctionProto, *, extra: Sequence[onnx.FunctionProto] = (), call_domain: str | None = None,
    call_name: str | None = None, inputs: Sequence[str] = ("X",), initializers: Sequence[onnx.TensorProto] = (),
    graph_inputs: Sequence[str] = ("X",), opset: int = OPSET, domains: Sequence[tuple[str, int]] = (),
    **attrs: Any,
) -> onnx.ModelProto:
    """A main graph X -> (one call of ``fn``, or of ``call_domain::call_name``) -> Y, float [4]."""
    node = helper.make_node(call_name or fn.name, list(inputs), ["Y"], name="call",
                            domain=fn.domain if call_domain is None else call_domain, **attrs)
    g = helper.make_graph(
        [node], "main", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in graph_inputs],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])], initializer=list(initializers),
    )
    imports = {"": opset, **dict(domains)}
    for f in (fn, *extra):
        if f.domain not in ("", "ai.onnx"):
            imports.setdefault(f.domain, 1)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in imports.items()],
                          functions=[fn, *extra])
    m.ir_version = 10
    return m


def relu_neg() -> onnx.ModelProto:
    """``ai.onnx::Relu`` defined locally as ``Neg``: the runtimes compute Relu, sonnx's inlining Neg."""
    return one_call(local_function("", "Relu", [helper.make_node("Neg", ["x"], ["y"])]))


def random_identity(**attrs: Any) -> onnx.ModelProto:
    """``ai.onnx::RandomNormalLike`` defined locally as ``Identity``: the runtimes draw random numbers."""
    return one_call(local_function("", "RandomNormalLike", [helper.make_node("Identity", ["x"], ["y"])]), **attrs)


def nested_random() -> onnx.ModelProto:
    """``local::Block`` calls the shadowing ``RandomNormalLike`` (the main graph only calls ``Block``)."""
    inner = local_function("", "RandomNormalLike", [helper.make_node("Identity", ["x"], ["y"])])
    block = local_function("local", "Block", [
        helper.make_node("Abs", ["x"], ["a"]),
        helper.make_node("RandomNormalLike", ["a"], ["r"]),
        helper.make_node("Neg", ["r"], ["y"]),
    ])
    return one_call(block, extra=[inner])


def custom_relu() -> onnx.ModelProto:
    """Control: ``custom::Relu`` with a ``Neg`` body is not ONNX's Relu; every runtime runs the function."""
    return one_call(local_function("custom", "Relu", [helper.make_node("Neg", ["x"], ["y"])]))


def later_gelu() -> onnx.ModelProto:
    """Control: ``ai.onnx::Gelu`` (ONNX's arrives in opset 20) in an opset-17 model; no runtime accepts it."""
    return one_call(local_function("", "Gelu", [helper.make_node("Neg", ["x"], ["y"])]))


def save(path: Path, m: onnx.ModelProto) -> str:
    onnx.save(m, str(path))
    return str(path)
