"""OP-ERROR-DIV-ZERO: an integer divisor that can be 0, proved absent by intervals or shown by a confirmed run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.model.graph import Model
from tests.common.rangekit import I32, build, const, verdict, vi, witness_inputs

pytestmark = pytest.mark.rule("OP-ERROR-DIV-ZERO")
ID = "OP-ERROR-DIV-ZERO"


def divide(tmp_path: Path, divisor_const: list[int] | None = None, via_abs_plus_one: bool = False) -> Model:
    nodes, inits, inputs = [], [], [vi("a", I32)]
    if divisor_const is not None:
        inits.append(const("b", divisor_const, np.int32))
    else:
        inputs.append(vi("b", I32))
    d = "b"
    if via_abs_plus_one:  # |b| + 1 is never 0 once b is at least 0
        inits.append(const("one", [1], np.int32))
        nodes += [helper.make_node("Relu", ["b"], ["rb"]), helper.make_node("Add", ["rb", "one"], ["d"])]
        d = "d"
    nodes.append(helper.make_node("Div", ["a", d], ["q"], name="the_div"))
    return build(tmp_path, nodes, inputs, [vi("q", I32)], inits)


def test_a_constant_divisor_without_zero_is_proved(tmp_path: Path) -> None:
    assert verdict(ID, divide(tmp_path, [3, -2])).status is Status.PROVED


def test_a_computed_divisor_whose_range_excludes_zero_is_proved(tmp_path: Path) -> None:
    v = verdict(ID, divide(tmp_path, via_abs_plus_one=True), ranges=[("b", -5, 5)])
    assert v.status is Status.PROVED
    assert v.details["assumed_input_ranges"] == {"b": {"lo": -5, "hi": 5, "from": "--input-range"}}


def test_a_divisor_input_that_can_be_zero_is_violated_with_a_witness_the_run_confirms(tmp_path: Path) -> None:
    m = divide(tmp_path)
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    (where,) = v.witness.data["operations"]  # type: ignore[misc]
    assert where["name"] == "the_div" and where["index"] == 0 and where["tag"] == "E_DIV_INT_CONSTR_B_0030"
    assert where["ranges"]["divisor"]["lo"] <= 0 <= where["ranges"]["divisor"]["hi"]
    run = trial_run(m, witness_inputs(v))
    assert run.operation == 0 and run.error is not None and "division by zero" in run.error


def test_a_constant_divisor_holding_zero_is_violated(tmp_path: Path) -> None:
    v = verdict(ID, divide(tmp_path, [4, 0]))
    assert v.status is Status.VIOLATED


def test_without_a_run_a_possible_zero_is_unknown_never_proved(tmp_path: Path) -> None:
    v = verdict(ID, divide(tmp_path), run=False)
    assert v.status is Status.UNKNOWN and v.reason is not None
    assert "the divisor can be 0" in v.reason and "no run" in v.reason


def test_a_range_that_holds_zero_but_no_input_reaches_it_is_unknown(tmp_path: Path) -> None:
    # b in [1, 9] is divided by (b - 1) * (b - 1) + ... : the divisor's range [-8, 8] holds 0 only at b == 1,
    # which the search reaches; b * 2 - 3 in [-1, 15] is odd, never 0, yet its range holds 0
    nodes = [helper.make_node("Mul", ["b", "two"], ["b2"]), helper.make_node("Sub", ["b2", "three"], ["d"]),
             helper.make_node("Div", ["a", "d"], ["q"])]
    m = build(tmp_path, nodes, [vi("a", I32), vi("b", I32)], [vi("q", I32)],
              [const("two", [2], np.int32), const("three", [3], np.int32)])
    v = verdict(ID, m, ranges=[("b", 1, 9)])
    assert v.status is Status.UNKNOWN and v.reason is not None and "input(s) tried" in v.reason
    assert v.details["assumed_input_ranges"]["b"]["hi"] == 9  # type: ignore[index]


def test_a_float_division_is_not_this_rules_concern(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("Div", ["a", "b"], ["q"])], [vi("a"), vi("b")], [vi("q")])
    assert verdict(ID, m).status is Status.PROVED
