"""OP-ERROR-LOG and OP-ERROR-SQRT: arguments outside the logarithm's and the square root's domains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.model.graph import Model
from tests.common.rangekit import build, const, verdict, vi, witness_inputs


def unary(tmp_path: Path, operator: str, shift: float | None = None, metadata: dict[str, str] | None = None) -> Model:
    """``operator(x)``, or ``operator(Relu(x) + shift)`` when ``shift`` is given."""
    if shift is None:
        return build(tmp_path, [helper.make_node(operator, ["x"], ["y"], name="f")], [vi("x")], [vi("y")],
                     metadata=metadata)
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "c"], ["s"]),
             helper.make_node(operator, ["s"], ["y"], name="f")]
    return build(tmp_path, nodes, [vi("x")], [vi("y")], [const("c", [shift])], metadata=metadata)


@pytest.mark.rule("OP-ERROR-LOG")
def test_log_of_relu_plus_a_positive_constant_is_proved_for_every_input(tmp_path: Path) -> None:
    assert verdict("OP-ERROR-LOG", unary(tmp_path, "Log", 1e-3)).status is Status.PROVED


@pytest.mark.rule("OP-ERROR-LOG")
def test_log_of_relu_alone_can_meet_zero_and_the_run_shows_minus_infinity(tmp_path: Path) -> None:
    m = unary(tmp_path, "Log", 0.0)
    v = verdict("OP-ERROR-LOG", m)
    assert v.status is Status.VIOLATED and v.witness is not None
    (where,) = v.witness.data["operations"]  # type: ignore[misc]
    assert where["tag"] == "log.md [C2]" and where["operator"] == "Log" and where["index"] == 2
    y = trial_run(m, witness_inputs(v)).values["y"]
    assert np.isneginf(y).any() or np.isnan(y).any()


@pytest.mark.rule("OP-ERROR-LOG")
def test_a_declared_positive_range_proves_log_and_says_it_rests_on_it(tmp_path: Path) -> None:
    m = unary(tmp_path, "Log")
    assert verdict("OP-ERROR-LOG", m).status is Status.VIOLATED
    v = verdict("OP-ERROR-LOG", m, ranges=[("x", 0.5, 4)])
    assert v.status is Status.PROVED and v.details["assumed_input_ranges"]["x"]["from"] == "--input-range"  # type: ignore[index]


@pytest.mark.rule("OP-ERROR-LOG")
def test_the_range_in_metadata_counts_and_the_command_line_wins(tmp_path: Path) -> None:
    m = unary(tmp_path, "Log", metadata={"sonnx.input_range.x": "0.25..2"})
    v = verdict("OP-ERROR-LOG", m)
    assert v.status is Status.PROVED and v.details["assumed_input_ranges"]["x"] == {  # type: ignore[index]
        "lo": 0.25, "hi": 2, "from": "metadata"}
    assert verdict("OP-ERROR-LOG", m, ranges=[("x", -1, 2)]).status is Status.VIOLATED


@pytest.mark.rule("OP-ERROR-LOG")
def test_a_malformed_metadata_range_leaves_the_rule_unknown(tmp_path: Path) -> None:
    v = verdict("OP-ERROR-LOG", unary(tmp_path, "Log", metadata={"sonnx.input_range.x": "2..1"}))
    assert v.status is Status.UNKNOWN and v.reason is not None and "sonnx.input_range.x" in v.reason


@pytest.mark.rule("OP-ERROR-LOG")
def test_log_after_an_operator_without_a_bound_is_unknown_without_a_run(tmp_path: Path) -> None:
    nodes = [helper.make_node("Sin", ["x"], ["s"]), helper.make_node("Log", ["s"], ["y"])]
    v = verdict("OP-ERROR-LOG", build(tmp_path, nodes, [vi("x")], [vi("y")]), run=False)
    assert v.status is Status.UNKNOWN and v.reason is not None and "at or below 0" in v.reason


@pytest.mark.rule("OP-ERROR-SQRT")
def test_sqrt_of_relu_is_proved_since_minus_zero_is_not_below_zero(tmp_path: Path) -> None:
    assert verdict("OP-ERROR-SQRT", unary(tmp_path, "Sqrt", 0.0)).status is Status.PROVED


@pytest.mark.rule("OP-ERROR-SQRT")
def test_sqrt_of_an_input_is_violated_and_the_run_gives_nan(tmp_path: Path) -> None:
    m = unary(tmp_path, "Sqrt")
    v = verdict("OP-ERROR-SQRT", m)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["operations"][0]["tag"] == "sqrt.md [C2]"  # type: ignore[index]
    assert np.isnan(trial_run(m, witness_inputs(v)).values["y"]).any()


@pytest.mark.rule("OP-ERROR-SQRT")
def test_sqrt_of_a_value_whose_range_dips_below_zero_but_no_input_reaches_it_is_unknown(tmp_path: Path) -> None:
    # x * x - x * x is always 0, but its range is [-lo*hi.., ..]: the analysis cannot see the two terms are equal
    nodes = [helper.make_node("Mul", ["x", "x"], ["a"]), helper.make_node("Sub", ["a", "a"], ["d"]),
             helper.make_node("Sqrt", ["d"], ["y"])]
    v = verdict("OP-ERROR-SQRT", build(tmp_path, nodes, [vi("x")], [vi("y")]), ranges=[("x", -2, 2)])
    assert v.status is Status.UNKNOWN and v.reason is not None and "input(s) tried" in v.reason


@pytest.mark.rule("OP-ERROR-SQRT")
def test_sqrt_of_a_range_just_below_zero_is_violated(tmp_path: Path) -> None:
    v = verdict("OP-ERROR-SQRT", unary(tmp_path, "Sqrt"), ranges=[("x", -0.5, 4)])
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["input"]["x"]["values"][0] < 0  # type: ignore[index]
