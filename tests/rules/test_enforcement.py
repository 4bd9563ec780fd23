"""The table of spec section 9.4 ("What a PROVED rests on"), measured again on the installed peers.

Each row is a model whose one declaration contradicts the value it computes
or is given, with what onnxruntime and onnx's reference evaluator do: refuse
(the model or the call) or run. sonnx trusts a declaration only where
onnxruntime refuses; when a peer's behaviour changes, this fails and the
spec's table (and :mod:`sonnx.rules.premises`) must be revisited.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tests.common.peers import onnxruntime

F = TensorProto.FLOAT
vi = helper.make_tensor_value_info
X23 = np.ones((2, 3), np.float32)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    value_info: tuple[onnx.ValueInfoProto, ...] = (),
    inits: tuple[onnx.TensorProto, ...] = (),
) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    return m


def _ort(m: onnx.ModelProto, feeds: dict[str, Any]) -> bool:
    """Whether onnxruntime runs the model on ``feeds`` (False: it refuses the model or the call)."""
    ort = onnxruntime()
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
        session.run(None, feeds)
    except Exception:
        return False
    return True


def _reference(m: onnx.ModelProto, feeds: dict[str, Any]) -> bool:
    try:
        ReferenceEvaluator(m).run(None, feeds)
    except Exception:
        return False
    return True


def _copy() -> list[onnx.NodeProto]:
    return [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Identity", ["t"], ["y"])]


def _add(a: str, b: str) -> list[onnx.NodeProto]:
    return [helper.make_node("Add", [a, b], ["y"])]


W = numpy_helper.from_array(X23, "w")
ANY = vi("y", F, None)
Row = tuple[str, Callable[[], onnx.ModelProto], dict[str, Any], bool]
ROWS: list[Row] = [
    ("input element type", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY]),
     {"x": X23.astype(np.float64)}, False),
    ("input rank", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY]), {"x": X23[..., None]}, False),
    ("input fixed size", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY]), {"x": np.ones((3, 3), np.float32)},
     False),
    ("one symbolic name on two inputs", lambda: _model(_add("x", "z"), [vi("x", F, ["N", 3]), vi("z", F, ["N", 3])],
                                                       [ANY]),
     {"x": np.ones((1, 3), np.float32), "z": X23}, True),
    ("one symbolic name twice in one input", lambda: _model(_copy(), [vi("x", F, ["N", "N"])], [ANY]), {"x": X23},
     True),
    ("initializer that is an input, declared size", lambda: _model(_add("x", "w"), [vi("x", F, [2, 3]),
                                                                                   vi("w", F, [3, 3])], [ANY],
                                                                   inits=(W,)), {"x": X23}, False),
    ("output element type", lambda: _model(_copy(), [vi("x", F, [2, 3])], [vi("y", TensorProto.DOUBLE, [2, 3])]),
     {"x": X23}, False),
    ("intermediate element type", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY],
                                                 (vi("t", TensorProto.DOUBLE, [2, 3]),)), {"x": X23}, False),
    ("output rank", lambda: _model(_copy(), [vi("x", F, [2, 3])], [vi("y", F, [2, 3, 1])]), {"x": X23}, True),
    ("output fixed size", lambda: _model(_copy(), [vi("x", F, [2, 3])], [vi("y", F, [5, 3])]), {"x": X23}, True),
    ("intermediate rank", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY], (vi("t", F, [2, 3, 1]),)),
     {"x": X23}, True),
    ("intermediate fixed size", lambda: _model(_copy(), [vi("x", F, [2, 3])], [ANY], (vi("t", F, [3, 3]),)),
     {"x": X23}, True),
    ("value_info of an initializer, size", lambda: _model(_add("x", "w"), [vi("x", F, [2, 3])], [ANY],
                                                          (vi("w", F, [3, 3]),), (W,)), {"x": X23}, True),
    ("value_info of an initializer, element type",
     lambda: _model(_add("x", "w"), [vi("x", F, [2, 3])], [ANY], (vi("w", TensorProto.DOUBLE, [2, 3]),), (W,)),
     {"x": X23}, True),
]


@pytest.mark.parametrize(("what", "build", "feeds", "ort_runs"), ROWS, ids=[r[0] for r in ROWS])
def test_what_the_runtimes_enforce(what: str, build: Callable[[], onnx.ModelProto], feeds: dict[str, Any],
                                   ort_runs: bool) -> None:
    m = build()
    assert _ort(m, feeds) is ort_runs, f"onnxruntime changed for '{what}': revisit spec 9.4's table"
    # the reference evaluator checks no declaration: it runs every row
    assert _reference(m, feeds), f"the reference evaluator refused '{what}': revisit spec 9.4's table"
