"""What onnxruntime and onnx's reference evaluator do with ``Loop`` and ``Scan``, against spec sections 3.6.1-3.6.2.

Section 3.6.1 defines ``Loop`` from the operator text and notes, measured, where the two runtimes depart from
it. Each case here is one of those measurements: the value the section's definition gives (computed by hand
in the test), and what each runtime gives (a value, or a failure). When a runtime changes, this fails and the
note of section 3.6.1 must be revisited.

Section 3.6.2 defines ``Scan`` likewise: a hand-written reading of its definition (slices, directions, axes)
is compared with onnxruntime, which follows it, and with the reference evaluator, which implements only the
default directions and axes.

The ``Loop`` body adds ``iteration_num + 1`` to its one carried value (initially 10), so the final value tells how many
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


def _scan(directions: tuple[int, int], axes: tuple[int, int], x_shape: list[int]) -> onnx.ModelProto:
    """A Scan whose body keeps ``s' = 10 * s + x`` and gives ``s'`` as its scan output."""
    ten = helper.make_tensor("ten_value", TensorProto.FLOAT, [], [10.0])
    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["ten"], value=ten),
            helper.make_node("Mul", ["s", "ten"], ["s10"]),
            helper.make_node("Add", ["s10", "x"], ["s2"]),
            helper.make_node("Identity", ["s2"], ["y"]),
        ],
        "body",
        [vi("s", TensorProto.FLOAT, [2]), vi("x", TensorProto.FLOAT, [2])],
        [vi("s2", TensorProto.FLOAT, [2]), vi("y", TensorProto.FLOAT, [2])],
    )
    scan = helper.make_node(
        "Scan",
        ["s0", "x"],
        ["sf", "ys"],
        body=body,
        num_scan_inputs=1,
        scan_input_directions=[directions[0]],
        scan_output_directions=[directions[1]],
        scan_input_axes=[axes[0]],
        scan_output_axes=[axes[1]],
    )
    inputs = [vi("s0", TensorProto.FLOAT, [2]), vi("x", TensorProto.FLOAT, x_shape)]
    g = helper.make_graph([scan], "g", inputs, [vi("sf", TensorProto.FLOAT, [2]), vi("ys", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _scan_by_section_3_6_2(x: np.ndarray, directions: tuple[int, int], axes: tuple[int, int]) -> object:
    """Section 3.6.2's definition, by hand: slices along the input axis, in the input direction; outputs stacked
    along the output axis, in the output direction."""
    slices = [np.take(x, t, axis=axes[0]) for t in range(x.shape[axes[0]])]
    if directions[0] == 1:
        slices.reverse()
    state = np.zeros(2, np.float32)
    ys = []
    for piece in slices:
        state = state * 10 + piece
        ys.append(state)
    if directions[1] == 1:
        ys.reverse()
    return _shown([state, np.stack(ys, axis=axes[1])])


@pytest.mark.parametrize(
    ("directions", "axes", "reference_follows"),
    [
        ((0, 0), (0, 0), True),
        ((1, 0), (0, 0), False),
        ((0, 1), (0, 0), False),
        ((0, 0), (1, 0), False),
        ((0, 0), (0, 1), False),
    ],
)
def test_the_runtimes_run_a_scan_as_section_3_6_2_says(
    directions: tuple[int, int], axes: tuple[int, int], reference_follows: bool
) -> None:
    x = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    if axes[0] == 1:
        x = np.ascontiguousarray(x.T)
    m = _scan(directions, axes, list(x.shape))
    feeds = {"s0": np.zeros(2, np.float32), "x": x}
    spec = _scan_by_section_3_6_2(x, directions, axes)
    assert _ort(m, feeds) == spec, "onnxruntime changed: revisit spec section 3.6.2"
    # onnx's reference evaluator implements only the default directions and axes; elsewhere it fails
    assert _reference(m, feeds) == (spec if reference_follows else "fails"), "revisit the note of spec 3.6.2"
