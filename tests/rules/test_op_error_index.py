"""OP-ERROR-INDEX: Gather indices inside the data's axis, proved from constants and ranges or shown by a run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from sonnx.base.verdict import Status
from sonnx.execution.executor import trial_run
from sonnx.model.graph import Model
from tests.common.rangekit import I64, build, const, verdict, vi, witness_inputs

pytestmark = pytest.mark.rule("OP-ERROR-INDEX")
ID = "OP-ERROR-INDEX"
TABLE = const("table", np.arange(12).reshape(4, 3))


def gather(tmp_path: Path, indices: list[int] | None = None, data_shape: list[object] | None = None) -> Model:
    inputs, inits = [], []
    if data_shape is None:
        inits.append(TABLE)
    else:
        inputs.append(vi("table", shape=data_shape))
    if indices is None:
        inputs.append(vi("i", I64, [2]))
    else:
        inits.append(const("i", indices, np.int64))
    node = helper.make_node("Gather", ["table", "i"], ["y"], name="g", axis=0)
    return build(tmp_path, [node], inputs, [vi("y", shape=None)], inits)


def test_constant_indices_inside_the_axis_are_proved_negative_ones_included(tmp_path: Path) -> None:
    assert verdict(ID, gather(tmp_path, [0, 3, -4])).status is Status.PROVED


def test_a_constant_index_past_the_axis_is_violated(tmp_path: Path) -> None:
    v = verdict(ID, gather(tmp_path, [0, 4]))
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["operations"][0]["ranges"]["size"] == {"axis": 0, "size": 4}  # type: ignore[index]


def test_an_index_input_is_violated_and_proved_once_its_range_is_declared(tmp_path: Path) -> None:
    m = gather(tmp_path)
    v = verdict(ID, m)
    assert v.status is Status.VIOLATED and v.witness is not None
    run = trial_run(m, witness_inputs(v))
    assert run.operation == 0 and run.error is not None and "outside" in run.error
    assert verdict(ID, m, ranges=[("i", -4, 3)]).status is Status.PROVED
    assert verdict(ID, m, ranges=[("i", 0, 4)]).status is Status.VIOLATED


def test_data_whose_axis_size_is_symbolic_is_unknown_without_a_run(tmp_path: Path) -> None:
    v = verdict(ID, gather(tmp_path, [0, 1], ["n", 3]), run=False)
    assert v.status is Status.UNKNOWN and v.reason is not None and "not fixed" in v.reason
