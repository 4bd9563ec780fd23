"""Relu written over its input (``sonnx.execution.reuse``): only where no other value can see it.

Each model below puts the Relu's input where an in-place write would show:
read by a second operation that keeps a view of it, a graph input, a value an
Identity passes on, a graph output, a value a nested graph reads from outside.
The outputs must be those of the run done literally by the semantics, and the
caller's arrays must be left as they were. ``FRESH``'s claim, that its
operators' kernels return arrays of their own, is checked on every backend
node case of those operators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.api import load
from sonnx.execution.executor import execute, execute_by_semantics, model_plan
from sonnx.execution.interpretation import NumpyInterpretation
from sonnx.execution.reuse import FRESH
from sonnx.model.semantics import FileOrder, Scheduler, SeededRandomOrder
from tests.common.backend_cases import _value, node_cases
from tests.common.builders import fvi, make_model

RNG = np.random.default_rng(11)
WEIGHTS = numpy_helper.from_array(RNG.standard_normal((3, 2, 3, 3)).astype(np.float32), "W")
CONV = helper.make_node("Conv", ["X", "W"], ["t"], pads=[1, 1, 1, 1])
X = fvi("X", [1, 2, 5, 5])


def conv_relu() -> onnx.ModelProto:
    return make_model([CONV, helper.make_node("Relu", ["t"], ["Y"])], [X], [fvi("Y", [1, 3, 5, 5])],
                      initializers=[WEIGHTS])


def relu_beside_a_view() -> onnx.ModelProto:
    """t is read by a Reshape (NumPy gives a view of t) before the Relu fires: two readers."""
    shape = numpy_helper.from_array(np.array([3, 25], dtype=np.int64), "shape")
    nodes = [CONV, helper.make_node("Reshape", ["t", "shape"], ["r"]), helper.make_node("Relu", ["t"], ["Y"])]
    return make_model(nodes, [X], [fvi("r", [3, 25]), fvi("Y", [1, 3, 5, 5])], initializers=[WEIGHTS, shape])


def relu_of_graph_input() -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["X"], ["Y"])], [X], [fvi("Y", [1, 2, 5, 5])])


def relu_after_identity() -> onnx.ModelProto:
    """Identity's value is the very array of its input, here the caller's."""
    nodes = [helper.make_node("Identity", ["X"], ["t"]), helper.make_node("Relu", ["t"], ["Y"])]
    return make_model(nodes, [X], [fvi("Y", [1, 2, 5, 5])])


def relu_of_graph_output() -> onnx.ModelProto:
    return make_model([CONV, helper.make_node("Relu", ["t"], ["Y"])], [X],
                      [fvi("t", [1, 3, 5, 5]), fvi("Y", [1, 3, 5, 5])], initializers=[WEIGHTS])


def relu_beside_a_nested_reader() -> onnx.ModelProto:
    """An If whose branch reads t from the outer graph, after the Relu in file order."""
    branch = helper.make_graph([helper.make_node("Identity", ["t"], ["b"])], "branch", [], [fvi("b", None)])
    cond = numpy_helper.from_array(np.array(True), "cond")
    nodes = [CONV, helper.make_node("Relu", ["t"], ["Y"]),
             helper.make_node("If", ["cond"], ["z"], then_branch=branch, else_branch=branch)]
    return make_model(nodes, [X], [fvi("Y", [1, 3, 5, 5]), fvi("z", None)], initializers=[WEIGHTS, cond])


SCHEDULES: list[Callable[[], Scheduler]] = [FileOrder, lambda: SeededRandomOrder(3)]


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize(
    ("build", "in_place"),
    [
        (conv_relu, {1}),
        (relu_beside_a_view, set()),
        (relu_of_graph_input, set()),
        (relu_after_identity, set()),
        (relu_of_graph_output, set()),
        (relu_beside_a_nested_reader, set()),
    ],
)
def test_relu_writes_over_its_input_only_where_nothing_else_sees_it(
    build: Callable[[], onnx.ModelProto], in_place: set[int], schedule: Callable[[], Scheduler]
) -> None:
    model = load(build())
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    given = x.copy()
    want = execute_by_semantics(model, {"X": x.copy()})
    for _ in range(2):  # the plan is reused: a second run sees no trace of the first
        got = execute(model, {"X": x}, schedule())
        assert np.array_equal(x, given) and x.tobytes() == given.tobytes()  # the caller's array untouched
        assert got.keys() == want.keys()
        for name in want:
            assert got[name].tobytes() == want[name].tobytes(), name
            assert (got[name] < 0).any() or name == "Y"  # the values an in-place Relu would have clipped
    assert model_plan(model).main.in_place == in_place


def test_in_place_relu_falls_back_on_what_it_cannot_write() -> None:
    """A read-only array (an initializer is read-only) goes to the ordinary kernel."""
    from sonnx.execution.reuse import InPlace
    from sonnx.ops.op_relu import relu, relu_in_place

    calls: list[Any] = []

    def ordinary(inputs: Any, scope: Any = None) -> tuple[Any, ...]:
        calls.append(inputs)
        return (relu(inputs[0]),)

    firing = InPlace(ordinary, relu_in_place)
    frozen = np.array([-1.0, 2.0], dtype=np.float32)
    frozen.flags.writeable = False
    assert firing([frozen])[0].tolist() == [0.0, 2.0] and frozen.tolist() == [-1.0, 2.0] and len(calls) == 1
    mine = np.array([-1.0, 2.0], dtype=np.float32)
    out = firing([mine])[0]
    assert out is mine and mine.tolist() == [0.0, 2.0] and len(calls) == 1


FRESH_CASES = [nc for nc in node_cases({op for _, op in FRESH}) if len(nc.operators) == 1]


def test_fresh_operators_have_backend_cases() -> None:
    assert {next(iter(nc.operators)) for nc in FRESH_CASES} == {op for _, op in FRESH}


@pytest.mark.parametrize("nc", FRESH_CASES, ids=[nc.case_id for nc in FRESH_CASES])
def test_fresh_operators_return_arrays_of_their_own(nc: Any) -> None:
    """Every output shares memory with no input, no attribute tensor and no output of another call."""
    assert nc.case.model is not None and nc.case.data_sets is not None
    model = load(nc.case.model)
    interpretation = NumpyInterpretation(model)
    inputs = [_value(v) for v in nc.case.data_sets[nc.data_set][0]]
    values = dict(zip(model.graph.inputs, inputs, strict=False))
    for op in model.graph.operations:
        bound = interpretation.bind(op)
        args = [values.get(n) if n else None for n in op.input_mapping]
        with np.errstate(all="ignore"):
            first = bound(args)
            second = bound(args)
        held = [a for a in args if isinstance(a, np.ndarray)]
        held += [a.value.read() for a in op.attributes if a.type == "TENSOR"]
        for out in (*first, *second):
            assert isinstance(out, np.ndarray)
            assert not any(np.shares_memory(out, h) for h in held)
        for a in first:
            assert not any(np.shares_memory(a, b) for b in second)
        values.update(zip(op.output_mapping, first, strict=True))


def test_the_element_type_of_a_fresh_output_may_be_anything_relu_takes() -> None:
    """Integer Relu (version 14) also runs in place, with the same values."""
    nodes = [helper.make_node("Add", ["A", "B"], ["t"]), helper.make_node("Relu", ["t"], ["Y"])]
    model = load(make_model(nodes, [fvi("A", [4], TensorProto.INT32), fvi("B", [4], TensorProto.INT32)],
                            [fvi("Y", [4], TensorProto.INT32)], opsets=(("", 14),)))
    a = np.array([-3, 4, -5, 6], dtype=np.int32)
    got = execute(model, {"A": a, "B": np.ones(4, np.int32)})
    assert model_plan(model).main.in_place == {1}
    assert got["Y"].tolist() == [0, 5, 0, 7] and a.tolist() == [-3, 4, -5, 6]
