"""What onnxruntime and onnx's reference evaluator do with a ``Loop``, against spec section 3.6.1, measured again.

Section 3.6.1 defines ``Loop`` from the operator text and notes, measured, where the two runtimes depart from
it. Each case here is one of those measurements: the value the section's definition gives (computed by hand
in the test), and what each runtime gives (a value, or a failure). When a runtime changes, this fails and the
note of section 3.6.1 must be revisited.

The body adds ``iteration_num + 1`` to its one carried value (initially 10), so the final value tells how many
iterations ran: 0 -> 10, 1 -> 11, 3 -> 16. It may also give ``iteration_num`` as a scalar scan output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from tests.common.peers import onnxruntime

vi = helper.make_tensor_value_info


def _loop(inputs: list[str], cond_out_false: bool = False, scan: bool = False) -> onnx.ModelProto:
    one = helper.make_tensor("one_value", TensorProto.FLOAT, [], [1.0])
    nodes = [
        helper.make_node("Constant", [], ["one"], value=one),
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["v", "fi"], ["v1"]),
        helper.make_node("Add", ["v1", "one"], ["v2"]),
    ]
    if cond_out_false:
        false = helper.make_tensor("false_value", TensorProto.BOOL, [], [False])
        nodes.append(helper.make_node("Constant", [], ["cond_out"], value=false))
    else:
        nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    body_outputs = [vi("cond_out", TensorProto.BOOL, []), vi("v2", TensorProto.FLOAT, [])]
    if scan:
        nodes.append(helper.make_node("Identity", ["fi"], ["s"]))
        body_outputs.append(vi("s", TensorProto.FLOAT, []))
    body_inputs = [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("v", TensorProto.FLOAT, [])]
    body = helper.make_graph(nodes, "body", body_inputs, body_outputs)
    graph_inputs = [vi("M", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []), vi("v0", TensorProto.FLOAT, [])]
    outputs = [vi("vf", TensorProto.FLOAT, [])] + ([vi("scans", TensorProto.FLOAT, ["T"])] if scan else [])
    loop = helper.make_node("Loop", inputs, [o.name for o in outputs], body=body)
    g = helper.make_graph([loop], "g", [x for x in graph_inputs if x.name in inputs], outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def _feeds(m: onnx.ModelProto, trips: int) -> dict[str, Any]:
    every = {"M": np.array(trips, np.int64), "c": np.array(True), "v0": np.array(10, np.float32)}
    return {x.name: every[x.name] for x in m.graph.input}


def _shown(outputs: list[Any]) -> list[tuple[tuple[int, ...], list[float]]]:
    return [(tuple(np.shape(o)), np.asarray(o, np.float64).ravel().tolist()) for o in outputs]


def _ort(m: onnx.ModelProto, feeds: dict[str, Any]) -> object:
    ort = onnxruntime()
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return _shown(session.run(None, feeds))
    except Exception:
        return "fails"


def _reference(m: onnx.ModelProto, feeds: dict[str, Any]) -> object:
    try:
        return _shown(list(ReferenceEvaluator(m).run(None, feeds)))
    except Exception:
        return "fails"


SPEC_THREE = [((), [16.0])]
CASES = [
    # (what, inputs, body's cond_out false, scan output, M, section 3.6.1's value, onnxruntime's, reference's,
    #  the runtimes that follow section 3.6.1 there, as its note says)
    ("M=3, cond omitted", ["M", "", "v0"], False, False, 3, SPEC_THREE, SPEC_THREE, [((), [10.0])], {"ort"}),
    (
        "M=3, cond omitted, cond_out false",
        ["M", "", "v0"],
        True,
        False,
        3,
        SPEC_THREE,
        [((), [11.0])],
        [((), [10.0])],
        set(),
    ),
    (
        "M=3, cond true, cond_out false",
        ["M", "c", "v0"],
        True,
        False,
        3,
        [((), [11.0])],
        [((), [11.0])],
        [((), [11.0])],
        {"ort", "reference"},
    ),
    (
        "M=3, cond true, scalar scan output",
        ["M", "c", "v0"],
        False,
        True,
        3,
        [*SPEC_THREE, ((3,), [0.0, 1.0, 2.0])],
        [*SPEC_THREE, ((3,), [0.0, 1.0, 2.0])],
        [*SPEC_THREE, ((3, 1), [0.0, 1.0, 2.0])],
        {"ort"},
    ),
    (
        "M=0, cond true, scalar scan output",
        ["M", "c", "v0"],
        False,
        True,
        0,
        [((), [10.0]), ((0,), [])],
        [((), [10.0]), ((0,), [])],
        "fails",
        {"ort"},
    ),
]


@pytest.mark.parametrize(
    ("inputs", "cond_out_false", "scan", "trips", "spec", "ort", "reference", "follows"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_the_runtimes_run_a_loop_as_section_3_6_1_says(
    inputs: list[str],
    cond_out_false: bool,
    scan: bool,
    trips: int,
    spec: object,
    ort: object,
    reference: object,
    follows: set[str],
) -> None:
    m = _loop(inputs, cond_out_false, scan)
    feeds = _feeds(m, trips)
    got = {"ort": _ort(m, feeds), "reference": _reference(m, feeds)}
    assert got["ort"] == ort, "onnxruntime changed: revisit the note of spec section 3.6.1"
    assert got["reference"] == reference, "the reference evaluator changed: revisit the note of spec section 3.6.1"
    assert {name for name, value in got.items() if value == spec} == follows
