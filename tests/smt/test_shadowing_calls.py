"""Both engines weigh both meanings of a call of a shadowing function, and agree (GRAPH-R2, GRAPH-DETERMINISM).

The SMT engine lists the calls from the loader's records and its own standard-operator listing, and the
solver evaluates the determinism table on each call's facts; the direct engine asks ``onnx.defs`` per
function and evaluates the table in Python. Every case of ``tests/common/shadowing.py``, in both modes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import onnx
import pytest

from sonnx.base.verdict import Status
from sonnx.loader import load_model
from tests.common import shadowing as sh
from tests.common.smtkit import disagreements, smt

pytestmark = pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")

V, P, U = Status.VIOLATED, Status.PROVED, Status.UNKNOWN

CASES: dict[str, tuple[Callable[[], onnx.ModelProto], Status, Status]] = {
    "relu of the report": (sh.relu_neg, P, P),
    "random generator of the report": (sh.random_identity, V, V),
    "nested in a function": (sh.nested_random, V, V),
    "in an If branch": (sh.random_in_branch, V, V),
    "dead": (sh.dead_random, V, P),
    "dropout, training_mode omitted": (lambda: sh.dropout(None), P, P),
    "dropout, training_mode false": (lambda: sh.dropout(False), P, P),
    "dropout, training_mode true": (lambda: sh.dropout(True), V, V),
    "dropout, training_mode an input": (lambda: sh.dropout("input"), V, V),
    # the branch names T nowhere once the call is inlined: both engines take it as a run-time value
    "dropout in a branch, training_mode the main graph's input": (sh.dropout_in_branch, V, V),
    "topk unsorted": (lambda: sh.topk(0), V, V),
    "topk sorted": (lambda: sh.topk(1), P, P),
    "topk unsorted by reference": (lambda: sh.topk_through_block(0), V, V),
    "topk sorted by reference": (lambda: sh.topk_through_block(1), P, P),
    "mod, divisor an input": (lambda: sh.mod(None), U, U),
    "mod, divisor with a zero": (lambda: sh.mod([1, 0, 2, 3]), V, V),
    "mod, divisor without": (lambda: sh.mod([1, 2, 2, 3]), P, P),
    "if whose then-branch draws random numbers": (sh.if_with_random_branch, U, U),
    "control: custom domain": (sh.custom_random, P, P),
    "control: later opset": (sh.later_gelu, P, P),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_engines_agree_on_both_meanings(case: str, tmp_path: Path) -> None:
    build, r2, det = CASES[case]
    m = load_model(sh.save(tmp_path / "m.onnx", build()))
    differ, s, d = disagreements(m)
    assert differ == []
    for v in (s, d):
        assert (v["GRAPH-R2"].status, v["GRAPH-DETERMINISM"].status) == (r2, det), v["GRAPH-R2"]


@pytest.mark.parametrize("mode", ["search", "certificate"])
def test_the_smt_witness_names_the_call_the_function_and_the_operator(mode: str, tmp_path: Path) -> None:
    m = load_model(sh.save(tmp_path / "m.onnx", sh.nested_random()))
    v = smt(m, mode)["GRAPH-R2"]
    assert v.status is V and v.witness is not None
    (f,) = v.witness.data["nondeterministic"]
    assert (f["scope"], f["function"], f["standard_operator"]) == ("main", "RandomNormalLike",
                                                                    "ai.onnx::RandomNormalLike-1")
    assert f["operation"].startswith("RandomNormalLike:call/Block/r (a call of function RandomNormalLike")
    det = smt(m, mode)["GRAPH-DETERMINISM"]
    assert det.status is V and det.witness is not None and "RandomNormalLike:call/Block/r" in (
        det.witness.data["source_reason"])
