"""Models that crash onnx's native code, and running the command line in a child process to survive them.

A model-local function whose body is an ``If`` taking both branches from a
graph attribute of the function, whose default graph calls the function
again: onnx's shape inference (and so ``check_model(..., full_check=True)``)
expands the default inside itself without end and the process dies with
SIGSEGV (onnx 1.23.2). A test that ran this in pytest's own process would
take pytest down with it, so the command line runs in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[2]


def _ref(name: str, to: str) -> onnx.AttributeProto:
    a = onnx.AttributeProto()
    a.name, a.ref_attr_name, a.type = name, to, onnx.AttributeProto.GRAPH
    return a


def self_calling_default() -> onnx.ModelProto:
    """The model whose function's graph-attribute default calls the function itself."""
    default = helper.make_graph(
        [helper.make_node("F", ["c", "a"], ["b"], domain="local")],
        "default_body",
        [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])],
    )
    branch = helper.make_node("If", ["c"], ["y"])
    branch.attribute.extend([_ref("then_branch", "body"), _ref("else_branch", "body")])
    imports = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]
    f = helper.make_function("local", "F", ["c", "a"], ["y"], [branch], imports)
    f.attribute_proto.append(helper.make_attribute("body", default))
    g = helper.make_graph(
        [helper.make_node("F", ["c", "x"], ["y"], domain="local")],
        "main",
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    m = helper.make_model(g, opset_imports=imports, functions=[f])
    m.ir_version = 10
    return m


def save_crasher(directory: Path, name: str = "crasher.onnx") -> Path:
    path = directory / name
    onnx.save(self_calling_default(), path)
    return path


def sonnx_child(*argv: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``sonnx ARGV`` in a child Python that imports this checkout's sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "sonnx", *argv], capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd
    )
