"""Operators that fail: the behaviour of ``run`` that the Coq error semantics models.

``proofs/coq/Errors.v`` and ``proofs/coq/ErrorCause.v`` model a failing
operator as one that, when it fires, ends the run in an error (the Python
exception) naming it; an operation that never becomes executable never
fails; a result list of the wrong length is a failure. The theorems (under
GRAPH-C1) are on the outcome, fails or gives a value, because which
operation fails first can depend on the scheduler; without GRAPH-C1 the
outcome itself can (``clash_outcomes_differ``). These tests check that
:func:`sonnx.model.semantics.run` behaves as modelled, so the theorems speak
about the code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from sonnx.model import FileOrder, LastReadyOrder, SeededRandomOrder, initial_state, make_graph, make_operation, run
from sonnx.model.graph import Graph, Operation
from sonnx.model.semantics import Scheduler, Scope


class KernelFailure(Exception):
    """What the test interpretation raises for a failing operator (a kernel's run-time error)."""


class FailingInterpretation:
    """Numbers: Constant gives its value, Relu passes its argument on and fails on ``bad``, Split gives one value."""

    def __init__(self, bad: float) -> None:
        self.bad = bad

    def apply(self, operation: Operation, args: Sequence[float | None], scope: Scope[float]) -> Sequence[float]:
        if operation.operator == "Constant":
            return [float(operation.attributes[0].value)]
        if operation.operator == "Relu":
            if args[0] == self.bad:
                raise KernelFailure(operation.label)
            return [float(args[0] or 0.0)]
        if operation.operator == "Split":
            return [0.0]
        raise AssertionError(f"no meaning for {operation.operator}")


SCHEDULERS: list[Callable[[], Scheduler]] = [
    FileOrder,
    LastReadyOrder,
    *[(lambda k=k: SeededRandomOrder(k)) for k in range(8)],
]


def outcome(graph: Graph, bad: float, make: Callable[[], Scheduler]) -> str:
    """``"fails: <label>"`` or the sorted values of the final state, as text."""
    try:
        final = run(graph, initial_state(graph, {}), FailingInterpretation(bad), make())
    except KernelFailure as e:
        return f"fails: {e}"
    except ValueError as e:
        return f"fails: {e}"
    return repr(sorted(final.values.items()))


def two_failures() -> Graph:
    """Two independent Relu operations that both fail on 2, and one that succeeds; GRAPH-C1 holds."""
    return make_graph(
        "g",
        [],
        ["y", "z", "w"],
        [
            make_operation("Constant", [], ["two"], value=2.0),
            make_operation("Constant", [], ["one"], value=1.0),
            make_operation("Relu", ["two"], ["y"]),
            make_operation("Relu", ["one"], ["w"]),
            make_operation("Relu", ["two"], ["z"]),
        ],
    )


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES")
def test_under_c1_every_scheduler_fails_though_not_on_the_same_operation() -> None:
    outcomes = {outcome(two_failures(), 2.0, make) for make in SCHEDULERS}
    assert all(o.startswith("fails: ") for o in outcomes), outcomes
    # which operation fails first is the scheduler's choice: the theorems state the outcome only
    assert len(outcomes) == 2, outcomes


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES")
def test_under_c1_with_no_failure_every_scheduler_ends_in_the_same_state() -> None:
    outcomes = {outcome(two_failures(), 3.0, make) for make in SCHEDULERS}
    assert len(outcomes) == 1 and not next(iter(outcomes)).startswith("fails"), outcomes


def test_an_operation_that_never_becomes_executable_never_fails() -> None:
    g = make_graph(
        "g",
        [],
        ["y"],
        [make_operation("Constant", [], ["two"], value=2.0), make_operation("Relu", ["ghost"], ["y"])],
    )
    for make in SCHEDULERS:
        # Relu fails on 2.0, but the run never gives it a value, so it never fires
        assert not outcome(g, 2.0, make).startswith("fails"), "Relu waits on a tensor nobody defines"


def test_a_result_list_of_the_wrong_length_is_a_failure() -> None:
    g = make_graph("g", [], ["a", "b"], [make_operation("Split", [], ["a", "b"])])
    want = f"fails: {g.operations[0].label}: the interpretation gave 1 values for 2 outputs"
    assert outcome(g, 2.0, FileOrder) == want


def test_without_c1_the_outcome_depends_on_the_order() -> None:
    """The graph of ``clash_outcomes_differ`` (reader placed between the writers): two writers of t, a reader
    that fails on the second value. File order fires the reader before the second writer; last-ready order
    fires the second writer first."""
    g = make_graph(
        "g",
        [],
        ["y"],
        [
            make_operation("Constant", [], ["t"], value=1.0),
            make_operation("Relu", ["t"], ["y"]),
            make_operation("Constant", [], ["t"], value=2.0),
        ],
    )
    first, last = outcome(g, 2.0, FileOrder), outcome(g, 2.0, LastReadyOrder)
    assert not first.startswith("fails"), first
    assert last.startswith("fails"), last


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES")
@pytest.mark.parametrize("make", SCHEDULERS[:2])
def test_a_failing_run_raises_the_operators_error(make: Callable[[], Scheduler]) -> None:
    with pytest.raises(KernelFailure):
        run(two_failures(), initial_state(two_failures(), {}), FailingInterpretation(2.0), make())
