"""OP-ERROR-INT-OVERFLOW: exact integer results against their type's range; narrowing casts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from tests.common.rangekit import I32, build, const, verdict, vi, witness_inputs

pytestmark = pytest.mark.rule("OP-ERROR-INT-OVERFLOW")
ID = "OP-ERROR-INT-OVERFLOW"
I8 = TensorProto.INT8


def test_a_sum_that_stays_inside_int32_under_declared_ranges_is_proved(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("Add", ["a", "b"], ["s"])], [vi("a", I32), vi("b", I32)], [vi("s", I32)])
    assert verdict(ID, m, ranges=[("a", -1000, 1000), ("b", 0, 2**30)]).status is Status.PROVED


def test_an_int8_product_that_wraps_is_violated_and_the_run_shows_the_wrapped_value(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("Mul", ["a", "k"], ["p"], name="scale")], [vi("a", I8)], [vi("p", I8)],
              [const("k", [3, 3], np.int8)])
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    where = v.witness.data["operations"][0]  # type: ignore[index]
    assert where["name"] == "scale" and where["ranges"]["exact_result"] == {"lo": -384, "hi": 381}
    a = witness_inputs(v)["a"]
    got = trial_run(m, {"a": a}).values["p"]
    assert np.any(a.astype(np.int64) * 3 != got.astype(np.int64))
    assert verdict(ID, m, ranges=[("a", -42, 42)]).status is Status.PROVED


def test_a_cast_of_a_float_outside_the_target_type_is_violated(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("Cast", ["x"], ["c"], to=I8)], [vi("x")], [vi("c", I8)])
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert "Cast of" in v.witness.summary
    assert verdict(ID, m, ranges=[("x", -128.5, 127.9)]).status is Status.PROVED


def test_an_integer_matmul_the_analysis_does_not_bound_is_unknown(tmp_path: Path) -> None:
    m = build(tmp_path, [helper.make_node("MatMul", ["a", "b"], ["p"])], [vi("a", I32, [2, 2]), vi("b", I32, [2, 2])],
              [vi("p", I32, [2, 2])])
    v = verdict(ID, m, ranges=[("a", 0, 1), ("b", 0, 1)])
    assert v.status is Status.UNKNOWN and v.reason is not None and "not bounded" in v.reason
