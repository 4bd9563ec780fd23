"""The comparison behind PARTITION-EXEC and PARTITION-FUSED: bit for bit, first differing output named."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sonnx.base.errors import ExecutionError
from sonnx.base.verdict import Status
from sonnx.partition.fused import _compare_runs

Outputs = dict[str, np.ndarray]


def _runs(a: Outputs, b: Outputs) -> Callable[[], tuple[Outputs, Outputs]]:
    return lambda: (a, b)


def test_equal_runs_give_no_verdict() -> None:
    x = {"y": np.array([1.0, np.nan], np.float32), "z": np.array([0], np.int64)}
    assert _compare_runs("PARTITION-EXEC", _runs(x, {k: v.copy() for k, v in x.items()}), "seeded", "{name!r}") is None


def test_the_first_differing_output_in_the_whole_models_order_is_the_witness() -> None:
    a = {"y": np.array([1.0], np.float32), "z": np.array([0.0], np.float32), "w": np.array([2.0], np.float32)}
    b = {"y": a["y"], "z": np.array([-0.0], np.float32), "w": np.array([3.0], np.float32)}
    v = _compare_runs("PARTITION-FUSED", _runs(a, b), "seeded", "output {name!r} differs")
    assert v is not None and v.status is Status.VIOLATED and v.rule_id == "PARTITION-FUSED"
    assert v.witness is not None and v.witness.summary == "output 'z' differs"
    assert v.witness.data == {"output": "z", "inputs": "seeded"}


def test_a_run_that_fails_leaves_the_verdict_unknown() -> None:
    def fails() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        raise ExecutionError("kernel refused")

    v = _compare_runs("PARTITION-EXEC", fails, "seeded", "{name!r}")
    assert v is not None and v.status is Status.UNKNOWN and "could not execute" in (v.reason or "")
