"""OP-RANGE-FLOAT (warning): float operations that turn finite arguments into an infinity or NaN."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from sonnx.base.verdict import Severity, Status
from sonnx.execution.executor import trial_run
from tests.common.rangekit import build, const, verdict, vi, witness_inputs

pytestmark = pytest.mark.rule("OP-RANGE-FLOAT")
ID = "OP-RANGE-FLOAT"


def exp_model(tmp_path: Path) -> object:
    return build(tmp_path, [helper.make_node("Exp", ["x"], ["y"], name="e")], [vi("x")], [vi("y")])


def test_exp_of_a_declared_small_range_is_proved(tmp_path: Path) -> None:
    assert verdict(ID, exp_model(tmp_path), ranges=[("x", -80, 88)]).status is Status.PROVED  # type: ignore[arg-type]


def test_exp_past_its_threshold_is_a_confirmed_warning_naming_the_threshold(tmp_path: Path) -> None:
    m = exp_model(tmp_path)
    v = verdict(ID, m, ranges=[("x", -1, 100)])  # type: ignore[arg-type]
    assert v.status is Status.VIOLATED and v.severity is Severity.WARNING and v.witness is not None
    where = v.witness.data["operations"][0]  # type: ignore[index]
    assert math.isclose(where["ranges"]["overflows_above"], 88.72, abs_tol=0.01)
    y = trial_run(m, witness_inputs(v)).values["y"]  # type: ignore[arg-type]
    assert np.isinf(y).any()


def test_a_dense_layer_on_bounded_inputs_is_proved_and_on_unbounded_ones_overflows(tmp_path: Path) -> None:
    w = const("w", np.linspace(-1, 1, 6).reshape(3, 2))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])]
    m = build(tmp_path, nodes, [vi("x", shape=[1, 3])], [vi("y", shape=[1, 2])], [w])
    assert verdict(ID, m, ranges=[("x", -1e3, 1e3)]).status is Status.PROVED
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED


def test_an_operation_without_a_bound_is_unknown(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("Sin", ["x"], ["y"])], [vi("x")], [vi("y")])
    v = verdict(ID, m, ranges=[("x", -1, 1)])
    assert v.status is Status.UNKNOWN and v.reason is not None and "no bound" in v.reason


def test_a_constant_holding_minus_infinity_is_not_an_overflow(tmp_path: Path) -> None:
    node = helper.make_node("Constant", [], ["m"], value=const("v", [-np.inf, 0.0]))
    add = helper.make_node("Max", ["m", "x"], ["y"])
    assert verdict(ID, build(tmp_path, [node, add], [vi("x")], [vi("y")]), ranges=[("x", 0, 1)]).status \
        is Status.PROVED
