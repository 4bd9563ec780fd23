"""An encoding that fails is UNKNOWN for its rule alone, with the reason; the run's records stay whole.

The scheduler of :mod:`sonnx.smt.engine` runs each rule's proof; a proof that
raises, recurses too deep, returns something other than a result, or answers
for another rule is a defect of sonnx, reported as UNKNOWN in the mode of the
run, never a pass, and the other rules are unaffected.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from sonnx.model.graph import Operation
from sonnx.smt import graph_c2, run_smt
from sonnx.smt.common import RuleResult, proved
from sonnx.smt.engine import RULE_IDS
from sonnx.verdict import Status
from tests.common.smtkit import g, model


def _raises(exc: BaseException) -> Callable[..., Iterator[Any]]:
    def prove(*_a: Any) -> Iterator[Any]:
        raise exc
        yield  # a generator, as every proof is

    return prove


def _returns(value: object) -> Callable[..., Generator[Any, Any, object]]:
    def prove(*_a: Any) -> Generator[Any, Any, object]:
        return value
        yield

    return prove


CASES = [
    (_raises(ValueError("planted")), "internal error in the SMT encoding: ValueError: planted"),
    (_raises(RecursionError()), "the encoding exceeded Python's recursion limit (a tool defect)"),
    (_returns(42), "the encoding returned int, not a result (a tool defect)"),
    (_returns(RuleResult(proved("GRAPH-C1", "search"))), "the encoding answered for 'GRAPH-C1' (a tool defect)"),
]


@pytest.mark.parametrize("mode", ["search", "certificate"])
@pytest.mark.parametrize(("prove", "reason"), CASES, ids=["raises", "recursion", "not-a-result", "other-rule"])
def test_a_failing_encoding_is_unknown_for_its_rule_alone(
    monkeypatch: pytest.MonkeyPatch, prove: Callable[..., Iterator[Any]], reason: str, mode: str
) -> None:
    monkeypatch.setattr(graph_c2, "prove", prove)
    m = model(g(["x"], ["y"], [Operation("Relu", "", "", ("x",), ("y",))]))
    run = run_smt(m, mode=mode)
    v = {x.rule_id: x for x in run.verdicts}
    assert sorted(v) == sorted(RULE_IDS)
    assert v["GRAPH-C2"].status is Status.UNKNOWN and v["GRAPH-C2"].reason == f"{reason} [smt/{mode}]"
    assert all(x.status is Status.PROVED for rid, x in v.items() if rid != "GRAPH-C2"), v


def test_every_rule_has_its_timing() -> None:
    run = run_smt(model(g(["x"], ["y"], [Operation("Relu", "", "", ("x",), ("y",))])))
    assert set(run.timings) == {"facts", *RULE_IDS}
    assert sum(t.obligations for t in run.timings.values()) == len(run.obligations)
