"""The SMT engine on a small model keeps the memory z3 frees, and still solves each obligation from nothing.

Each obligation gets a fresh z3 context (:func:`sonnx.smt.solver.make_solver`);
on a model solved in this process the engine first has the process keep the
memory it frees (:func:`sonnx.base.allocator.keep_freed_memory`), so that
the next context reuses the pages of the last. Only pages may pass from one
obligation to the next: never a declaration, an assertion or a learnt fact.
"""

from __future__ import annotations

import gc

import pytest

from sonnx.base import allocator
from sonnx.base.verdict import Status
from sonnx.model.graph import Model, Operation
from sonnx.smt import engine
from sonnx.smt.solver import SolverSettings, model_values, solve
from tests.common.smtkit import g, model


def _two_writers() -> Model:
    """A model where two operations write ``y`` (GRAPH-C1 violated), three operations in all."""
    ops = [
        Operation("Relu", "", "r1", ("x",), ("y",)),
        Operation("Neg", "", "r2", ("x",), ("y",)),
        Operation("Abs", "", "r3", ("y",), ("z",)),
    ]
    return model(g(["x"], ["z"], ops))


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    calls: list[None] = []
    monkeypatch.setattr(engine, "keep_freed_memory", lambda: calls.append(None) or True)
    return calls


def test_a_model_solved_in_this_process_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _calls(monkeypatch)
    run = engine.run_smt(_two_writers())
    assert len(calls) == 1
    assert {v.rule_id: v.status for v in run.verdicts}["GRAPH-C1"] is Status.VIOLATED


def test_a_model_at_the_pool_s_size_leaves_the_allocator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _calls(monkeypatch)
    monkeypatch.setattr(engine, "POOL_MIN_OPERATIONS", 3)  # the model has 3 operations: a "large" one here
    run = engine.run_smt(_two_writers(), jobs=1)
    assert calls == []
    assert {v.rule_id: v.status for v in run.verdicts}["GRAPH-C1"] is Status.VIOLATED


def test_with_freed_memory_kept_no_obligation_sees_another_s_terms() -> None:
    """The second script reuses the first's name with another value, then the name with another sort: had the
    first's declarations or assertions reached the second solver, its answer would be unsat or an error."""
    assert allocator.keep_freed_memory() == allocator.keep_freed_memory()  # whatever the platform, set once
    st = SolverSettings()
    first = solve("(declare-fun a () Int)(assert (= a 7))", st)
    assert first.result == "sat" and model_values(first, ["a"]) == {"a": 7}
    del first
    gc.collect()  # its context is freed: the next one may take its pages
    second = solve("(declare-fun a () Int)(assert (= a 9))", st)
    assert second.result == "sat" and model_values(second, ["a"]) == {"a": 9}
    assert len(second.solver.assertions()) == 1
    del second
    gc.collect()
    third = solve("(declare-fun a () Bool)(assert (not a))", st)
    assert third.result == "sat" and model_values(third, ["a"], "Bool") == {"a": False}
    assert len(third.solver.assertions()) == 1


def test_the_verdicts_of_one_model_do_not_depend_on_the_model_checked_before() -> None:
    """A violated model, a clean one, the violated one again: its verdicts and witnesses are the same both times,
    and the clean model is proved whole, in one process with freed memory kept."""
    violated = _two_writers()
    clean = model(g(["x"], ["z"], [Operation("Relu", "", "r", ("x",), ("y",)),
                                   Operation("Neg", "", "n", ("y",), ("z",))]))
    before = engine.run_smt(violated).verdicts
    between = engine.run_smt(clean).verdicts
    after = engine.run_smt(violated).verdicts
    assert [(v.rule_id, v.status, v.witness) for v in before] == [(v.rule_id, v.status, v.witness) for v in after]
    assert all(v.status is Status.PROVED for v in between), between
