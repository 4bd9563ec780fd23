"""OP-SHAPES: shape conditions proved for every admissible input, violations confirmed by a run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import z3
from onnx import helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import execute
from sonnx.rules import op_shapes
from sonnx.rules.base import TrialRun
from sonnx.rules.shapes_analysis import analyse
from tests.common.shapekit import conv_net, run_rule, saved

pytestmark = pytest.mark.rule("OP-SHAPES")


def test_a_dynamic_batch_conv_net_is_proved_over_the_declared_batch_range(tmp_path: Path) -> None:
    model = conv_net(tmp_path)
    assert run_rule(model, [("N", 1, 64), ("H", 3, 512)]).status is Status.PROVED


def test_padding_makes_every_image_size_fit(tmp_path: Path) -> None:
    assert run_rule(conv_net(tmp_path, pads=(1, 1, 1, 1))).status is Status.PROVED


def test_a_conv_window_larger_than_small_images_is_violated_with_a_confirmed_shape(tmp_path: Path) -> None:
    v = run_rule(conv_net(tmp_path), [("N", 1, 64)])
    assert v.status is Status.VIOLATED and v.witness is not None
    data = v.witness.data
    assert data["operation"] == 0 and data["label"] == "Conv:c"
    assert data["dims"] == {"N": 1, "H": 1}  # the least failing shape
    assert data["input_shapes"] == {"x": [1, 3, 1, 1]}
    assert "window" in str(data["run_error"])


def test_the_least_failing_image_is_found_when_the_range_starts_higher(tmp_path: Path) -> None:
    v = run_rule(conv_net(tmp_path, kernel=5), [("N", 2, 4), ("H", 2, 100)])
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["dims"] == {"N": 2, "H": 2}


def test_a_matmul_whose_inner_dimensions_agree_for_one_size_only_is_violated(tmp_path: Path) -> None:
    w = np.ones((4, 3), np.float32)
    model = saved(tmp_path, [helper.make_node("MatMul", ["x", "W"], ["y"])], [("x", ["B", "K"])], [("W", w)])
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["dims"] == {"B": 1, "K": 1}
    assert run_rule(model, [("K", 4, 4)]).status is Status.PROVED


def test_a_reshape_whose_element_count_fails_for_some_batch_is_violated(tmp_path: Path) -> None:
    shape = np.array([4, 3], np.int64)
    model = saved(tmp_path, [helper.make_node("Reshape", ["x", "s"], ["y"])], [("x", ["N", 6])], [("s", shape)])
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["dims"] == {"N": 1} and v.witness.data["operation"] == 0
    assert run_rule(model, [("N", 2, 2)]).status is Status.PROVED


@pytest.mark.parametrize("target", [[-1, 3], [0, 2, 3], [0, -1]])
def test_reshapes_with_zero_and_minus_one_are_proved(tmp_path: Path, target: list[int]) -> None:
    shape = np.array(target, np.int64)
    model = saved(tmp_path, [helper.make_node("Reshape", ["x", "s"], ["y"])], [("x", ["N", 6])], [("s", shape)])
    assert run_rule(model).status is Status.PROVED


def test_a_minus_one_that_does_not_divide_is_violated(tmp_path: Path) -> None:
    shape = np.array([-1, 4], np.int64)
    model = saved(tmp_path, [helper.make_node("Reshape", ["x", "s"], ["y"])], [("x", ["N", 6])], [("s", shape)])
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["dims"] == {"N": 1}
    assert run_rule(model, [("N", 2, 2)]).status is Status.PROVED


def test_two_batches_that_need_not_agree_break_a_broadcast(tmp_path: Path) -> None:
    model = saved(tmp_path, [helper.make_node("Add", ["a", "b"], ["c"])], [("a", ["N", 3]), ("b", ["M", 3])])
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["dims"] == {"N": 2, "M": 3}  # the least sum, then the least N
    shared = saved(tmp_path, [helper.make_node("Add", ["a", "b"], ["c"])], [("a", ["N", 3]), ("b", ["N", 3])],
                   name="shared.onnx")
    assert run_rule(shared).status is Status.PROVED


def test_a_constant_index_beyond_small_inputs_is_violated(tmp_path: Path) -> None:
    idx = np.array([5], np.int64)
    model = saved(tmp_path, [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], [("x", ["N", 3])],
                  [("i", idx)])
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["dims"] == {"N": 1}
    assert run_rule(model, [("N", 6, 100)]).status is Status.PROVED


def test_a_shape_computed_from_the_input_shape_is_followed(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus"], ["t"], axis=0),
        helper.make_node("Reshape", ["x", "t"], ["y"]),
    ]
    stored = [("zero", np.array(0, np.int64)), ("zero1", np.array([0], np.int64)),
              ("minus", np.array([-1], np.int64))]
    model = saved(tmp_path, nodes, [("x", ["N", "C", 4])], stored)
    assert run_rule(model).status is Status.PROVED


def test_an_operator_without_a_transfer_function_leaves_the_verdict_open(tmp_path: Path) -> None:
    nodes = [helper.make_node("NonZero", ["x"], ["i"]), helper.make_node("Identity", ["i"], ["y"])]
    v = run_rule(saved(tmp_path, nodes, [("x", ["N"])]))
    assert v.status is Status.UNKNOWN and v.reason is not None
    assert "NonZero" in v.reason and "1 operation(s) downstream" in v.reason


def test_a_violation_without_a_trial_run_is_not_claimed(tmp_path: Path) -> None:
    v = run_rule(conv_net(tmp_path), runner=None)
    assert v.status is Status.UNKNOWN and v.reason is not None
    assert "H=1" in v.reason and "not confirmed (no run is possible" in v.reason


def test_a_run_that_does_not_fail_at_the_operation_confirms_nothing(tmp_path: Path) -> None:
    def quiet_run(model: object, feeds: object) -> TrialRun:
        return TrialRun({}, None, None)

    v = run_rule(conv_net(tmp_path), runner=quiet_run)
    assert v.status is Status.UNKNOWN and v.reason is not None and "the run ran to the end" in v.reason

    def elsewhere(model: object, feeds: object) -> TrialRun:
        return TrialRun({}, "boom", 2)

    v = run_rule(conv_net(tmp_path), runner=elsewhere)
    assert v.status is Status.UNKNOWN and v.reason is not None and "failed at operation 2: boom" in v.reason


def test_a_counterexample_too_large_to_run_is_not_run(tmp_path: Path) -> None:
    model = conv_net(tmp_path, kernel=3)
    calls: list[object] = []

    def counting(m: object, feeds: object) -> TrialRun:
        calls.append(feeds)
        return TrialRun({}, None, None)

    v = run_rule(model, [("N", 10_000_000, 10_000_000), ("H", 1, 2)], runner=counting)
    assert v.status is Status.UNKNOWN and v.reason is not None and "more than 10,000,000 elements" in v.reason
    assert calls == []


def test_a_nested_graph_is_named_as_not_analysed(tmp_path: Path) -> None:
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", 1, None)])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", 1, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Cast", ["s"], ["b"], to=9),
             helper.make_node("If", ["b"], ["y"], then_branch=then, else_branch=other)]
    v = run_rule(saved(tmp_path, nodes, [("x", ["N"])], opset=11))
    assert v.status is Status.UNKNOWN and v.reason is not None and "nested graph" in v.reason


def _evaluated(shape: tuple[object, ...], values: dict[str, int], variables: dict[str, z3.ArithRef]) -> list[int]:
    pairs = [(variables[n], z3.IntVal(v)) for n, v in values.items() if n in variables]
    out = []
    for d in shape:
        got = d if isinstance(d, int) else z3.simplify(z3.substitute(d, *pairs))
        out.append(int(got) if isinstance(got, int) else int(got.as_long()))
    return out


@pytest.mark.parametrize(
    "op",
    [
        helper.make_node("Conv", ["x", "W"], ["y"], strides=[2, 3], pads=[1, 0, 0, 2]),
        helper.make_node("Conv", ["x", "W"], ["y"], strides=[2, 2], dilations=[2, 1]),
        helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], strides=[2, 3], ceil_mode=0),
        helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[3, 2], pads=[1, 1, 0, 0]),
    ],
    ids=["conv-pads", "conv-dilation", "maxpool-ceil", "maxpool-floor", "avgpool-pads"],
)
def test_derived_window_sizes_are_those_a_run_gives(tmp_path: Path, op: object) -> None:
    w = np.ones((2, 3, 3, 3), np.float32)
    model = saved(tmp_path, [op], [("x", [1, 3, "H", "V"])], [("W", w)] if "W" in op.input else [])  # type: ignore[attr-defined]
    a = analyse(model)
    for h in range(5, 12):
        for wd in (6, 7, 8):
            x = np.zeros((1, 3, h, wd), np.float32)
            got = execute(model, {"x": x})
            assert list(got["y"].shape) == _evaluated(a.infos["y"].shape, {"H": h, "V": wd}, a.variables), (h, wd)


def test_a_per_axis_scale_must_match_a_symbolic_channel_count(tmp_path: Path) -> None:
    nodes = [helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"], axis=1)]
    stored = [("scale", np.ones(4, np.float32)), ("zero", np.zeros(4, np.int8))]
    model = saved(tmp_path, nodes, [("q", ["N", "C"])], stored, elem=3)
    v = run_rule(model)
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["dims"] == {"N": 1, "C": 1}
    assert run_rule(model, [("C", 4, 4)]).status is Status.PROVED


def test_ceil_mode_with_a_window_that_can_start_past_the_input_is_left_open(tmp_path: Path) -> None:
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[3, 3], ceil_mode=1)
    v = run_rule(saved(tmp_path, [node], [("x", [1, 1, "H", "H"])]), [("H", 2, 100)])
    assert v.status is Status.UNKNOWN and v.reason is not None and "ceil_mode" in v.reason


def test_a_range_of_followed_integers_sizes_what_follows(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Range", ["zero", "n", "two"], ["r"]),
        helper.make_node("Cast", ["r"], ["rf"], to=1),
        helper.make_node("Add", ["rf", "half"], ["y"]),
    ]
    stored = [("zero", np.array(0, np.int64)), ("two", np.array(2, np.int64)), ("half", np.ones(3, np.float32))]
    model = saved(tmp_path, nodes, [("x", ["N"])], stored)
    v = run_rule(model, [("N", 1, 100)])
    # ceil(N / 2) broadcasts with 3 elements for N in 5..6 only (or 1..2): a failing N is 3
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["dims"] == {"N": 3}
    assert run_rule(model, [("N", 5, 6)]).status is Status.PROVED


def test_a_question_z3_does_not_answer_within_its_resource_limit_leaves_the_verdict_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # x (N, M) reshaped to (-1, N): N divides N * M, a question of non-linear integer arithmetic
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
        helper.make_node("Concat", ["minus", "n1"], ["t"], axis=0),
        helper.make_node("Reshape", ["x", "t"], ["y"]),
    ]
    stored = [("zero", np.array(0, np.int64)), ("zero1", np.array([0], np.int64)),
              ("minus", np.array([-1], np.int64))]
    model = saved(tmp_path, nodes, [("x", ["N", "M"])], stored)
    assert run_rule(model).status is Status.PROVED
    monkeypatch.setattr(op_shapes, "RLIMIT", 1)
    v = run_rule(model)
    assert v.status is Status.UNKNOWN and v.reason is not None and "z3 gave up" in v.reason


def test_the_verdict_and_its_witness_are_the_same_on_every_run(tmp_path: Path) -> None:
    model = saved(tmp_path, [helper.make_node("Add", ["a", "b"], ["c"])], [("a", ["N", "K"]), ("b", ["M", "K"])])
    first, second = run_rule(model), run_rule(model)
    assert first.status is Status.VIOLATED and first == second
