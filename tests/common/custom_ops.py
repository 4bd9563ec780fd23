"""Models with operators of a custom domain, and operator-declaration files for them (``--operator-declarations``)."""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

MS = "com.microsoft"

FUSED_MATMUL = """version = 1

[[operator]]
domain = "com.microsoft"
name = "FusedMatMul"
since = 1
deterministic = true
inputs = { min = 2, max = 2, types = ["float", "float16", "double"] }
outputs = { min = 1, max = 1 }
attributes = { alpha = "float", transA = "int", transB = "int" }
"""
"""FusedMatMul as onnxruntime's contrib operators define it: two inputs, one output, deterministic."""


def fused_matmul_model(path: Path, elem: int = TensorProto.FLOAT, opset: int = 1) -> Path:
    """``Y = Relu(FusedMatMul(A, B))`` with FusedMatMul of domain com.microsoft (opset ``opset``)."""
    a = helper.make_tensor_value_info("A", elem, [2, 3])
    b = helper.make_tensor_value_info("B", elem, [3, 4])
    y = helper.make_tensor_value_info("Y", elem, [2, 4])
    nodes = [
        helper.make_node("FusedMatMul", ["A", "B"], ["T"], name="fm", domain=MS, alpha=1.0),
        helper.make_node("Relu", ["T"], ["Y"], name="relu"),
    ]
    graph = helper.make_graph(nodes, "g", [a, b], [y])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, opset)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def custom_model(path: Path, operator: str, inputs: list[str], outputs: list[str] | None = None) -> Path:
    """One operation of ``com.microsoft::operator`` on float graph inputs ``X0``, ``X1``... (``""`` leaves a
    position out), writing graph output ``Y`` (or ``outputs``, the first of them the graph output)."""
    outs = outputs or ["Y"]
    given = [n for n in inputs if n]
    vis = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in given]
    y = helper.make_tensor_value_info(outs[0], TensorProto.FLOAT, [2])
    node = helper.make_node(operator, inputs, outs, name="op", domain=MS)
    graph = helper.make_graph([node], "g", vis, [y])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path


def declare(path: Path, text: str) -> Path:
    """Write a declarations file (TOML, or JSON when ``path`` ends in ``.json``) and return its path."""
    path.write_text(text, encoding="utf-8")
    return path


def one(operator: str, deterministic: bool = True, inputs: str = "{ min = 1, max = 1 }",
        outputs: str = "{ min = 1, max = 1 }", extra: str = "") -> str:
    """The TOML of a file declaring one operator of com.microsoft, opset 1 onwards."""
    return (
        f'version = 1\n\n[[operator]]\ndomain = "{MS}"\nname = "{operator}"\n'
        f"deterministic = {'true' if deterministic else 'false'}\ninputs = {inputs}\noutputs = {outputs}\n{extra}"
    )
