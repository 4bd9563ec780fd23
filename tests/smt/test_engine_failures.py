"""An encoding that fails is UNKNOWN for its rule alone, with the reason; the run's records stay whole.

The scheduler of :mod:`sonnx.smt.engine` runs each rule's proof; a proof that
raises, recurses too deep, returns something other than a result, or answers
for another rule is a defect of sonnx, reported as UNKNOWN in the mode of the
run, never a pass, and the other rules are unaffected.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from typing import Any

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Operation
from sonnx.smt import registry, run_smt
from sonnx.smt.common import RuleResult, proved
from sonnx.smt.engine import RULE_IDS
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


def plant(monkeypatch: pytest.MonkeyPatch, rule_id: str, prove: Callable[..., Iterator[Any]]) -> None:
    """Make ``prove`` the proof of ``rule_id``'s encoding in the table the engine loops over."""
    table = tuple(replace(e, prove=prove) if e.rule_id == rule_id else e for e in registry.ENCODINGS)
    assert table != registry.ENCODINGS, rule_id
    monkeypatch.setattr(registry, "ENCODINGS", table)


CASES = [
    (_raises(ValueError("planted")), "internal error in the SMT encoding: ValueError: planted"),
    (_raises(RecursionError()), "the encoding exceeded Python's recursion limit (a tool defect)"),
    (_returns(42), "the encoding returned int, not a result (a tool defect)"),
    (_returns(RuleResult(proved("GRAPH-C1", "search"))), "the encoding answered for 'GRAPH-C1' (a tool defect)"),
]


@pytest.mark.rule("GRAPH-C1", "GRAPH-C2")
@pytest.mark.parametrize("mode", ["search", "certificate"])
@pytest.mark.parametrize(("prove", "reason"), CASES, ids=["raises", "recursion", "not-a-result", "other-rule"])
def test_a_failing_encoding_is_unknown_for_its_rule_alone(
    monkeypatch: pytest.MonkeyPatch, prove: Callable[..., Iterator[Any]], reason: str, mode: str
) -> None:
    plant(monkeypatch, "GRAPH-C2", prove)
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


# -- the solving the engine hands its obligations to --------------------------------------------


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_a_worker_function_that_raises_in_this_process_is_unknown_for_its_rule() -> None:
    """With one job the worker function runs in this process; if it raises, its obligation is not established."""
    from sonnx.smt.pool import Solving

    from . import pool_workers

    m = model(g(["x"], ["y"], [Operation("Relu", "", "r", ("x",), ("y",))]))
    with Solving(1, pool_workers.raises_on_ranks) as solving:
        run = run_smt(m, mode="certificate", solving=solving)
    v = {x.rule_id: x for x in run.verdicts}["GRAPH-ACYCLIC"]
    assert v.status is Status.UNKNOWN
    assert v.reason == "the solver's worker failed: RuntimeError: planted failure in the worker [smt/certificate]"


@pytest.mark.rule("GRAPH-ACYCLIC")
def test_only_cycle_obligations_go_to_the_difference_logic_solver() -> None:
    """The engine marks each job: difference logic for GRAPH-ACYCLIC's claimed cycles, not for the others."""
    from sonnx.smt.pool import Job, Reply, Solving, solve_job

    jobs: list[Job] = []

    def recording(job: Job) -> Reply:
        jobs.append(job)
        return solve_job(job)

    ops = [Operation("Add", "", "a", ("x", "z"), ("y",)), Operation("Neg", "", "n", ("y",), ("z",))]
    with Solving(1, recording) as solving:
        run_smt(model(g(["x"], ["y"], ops)), mode="certificate", solving=solving)
    marked = {"; counter-certificate: the raw facts of a cycle" in j.text for j in jobs if j.difference_logic}
    assert marked == {True}, [j.text[:80] for j in jobs if j.difference_logic]
    assert any(not j.difference_logic for j in jobs)


def test_the_engine_closes_the_solving_it_opened_and_only_that(monkeypatch: pytest.MonkeyPatch) -> None:
    import sonnx.smt.engine as engine
    from sonnx.smt.pool import Solving

    closed: list[Solving] = []

    class Recording(Solving):
        def close(self) -> None:
            closed.append(self)
            super().close()

    opened: list[Solving] = []

    def open_solving(jobs: int | None, operations: int) -> Solving:
        opened.append(Recording(1))
        return opened[-1]

    monkeypatch.setattr(engine, "open_solving", open_solving)
    m = model(g(["x"], ["y"], [Operation("Relu", "", "r", ("x",), ("y",))]))
    run_smt(m)
    assert len(opened) == 1 and closed == opened
    given = Recording(1)
    run_smt(m, solving=given)
    assert closed == opened, "a solving passed in by the caller is the caller's to close"
    given.close()
