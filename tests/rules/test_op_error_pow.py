"""OP-ERROR-POW: negative bases with non-integer exponents, zero to a negative power, integers to negative powers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.model.graph import Model
from tests.common.rangekit import I32, build, const, verdict, vi, witness_inputs

pytestmark = pytest.mark.rule("OP-ERROR-POW")
ID = "OP-ERROR-POW"


def power(tmp_path: Path, exponent: list[float] | None, elem: int = 1) -> Model:
    inputs = [vi("x", elem)] + ([vi("e", elem)] if exponent is None else [])
    inits = [] if exponent is None else [const("e", exponent, np.float32 if elem == 1 else np.int32)]
    return build(tmp_path, [helper.make_node("Pow", ["x", "e"], ["y"], name="p")], inputs, [vi("y", elem)], inits)


def test_integer_exponents_are_proved_for_any_base(tmp_path: Path) -> None:
    assert verdict(ID, power(tmp_path, [2.0, 3.0])).status is Status.PROVED


def test_a_fractional_exponent_on_a_base_that_can_be_negative_is_violated_with_nan(tmp_path: Path) -> None:
    m = power(tmp_path, [0.5, 2.0])
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert "negative base" in v.witness.data["operations"][0]["error"]  # type: ignore[index]
    assert np.isnan(trial_run(m, witness_inputs(v)).values["y"]).any()


def test_a_fractional_exponent_on_a_declared_positive_base_is_proved(tmp_path: Path) -> None:
    assert verdict(ID, power(tmp_path, [0.5, 2.0]), ranges=[("x", 0.1, 3)]).status is Status.PROVED


def test_zero_to_a_negative_power_is_violated(tmp_path: Path) -> None:
    m = power(tmp_path, [-1.0, -1.0])
    v = verdict(ID, m, ranges=[("x", 0, 3)])
    assert v.status is Status.VIOLATED and v.witness is not None
    assert np.isinf(trial_run(m, witness_inputs(v)).values["y"]).any()


def test_an_integer_base_to_a_negative_power_is_violated_where_the_kernel_refuses_it(tmp_path: Path) -> None:
    m = power(tmp_path, None, I32)
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert trial_run(m, witness_inputs(v)).operation == 0


def test_a_computed_exponent_with_an_unknown_range_is_unknown_without_a_run(tmp_path: Path) -> None:
    v = verdict(ID, power(tmp_path, None), run=False)
    assert v.status is Status.UNKNOWN and v.reason is not None and "no run" in v.reason


def test_a_fractional_exponent_on_a_slightly_negative_declared_base_is_violated(tmp_path: Path) -> None:
    v = verdict(ID, power(tmp_path, [0.5]), ranges=[("x", -2, 2)])
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.details == {} and v.witness.data["assumed_input_ranges"] == {  # type: ignore[comparison-overlap]
        "x": {"lo": -2, "hi": 2, "from": "--input-range"}}
