"""The comparisons of graphs with nested graphs against ``run_ng`` of Nested.v (spec 1.4, 3.6).

The runner's nested blocks (``proofs/coq/ExtractNested.v``) print, for the
main graph, the state after each firing of the file-order run inside
``run_ng``, the final values and ``run_ng``'s outputs. This module compares
:mod:`sonnx.model.semantics` with them: ``fire`` step by step, ``run`` in
file order at every depth, and, where GRAPH-C1 holds at every depth
(``nested_order_independence``), ``run`` under a seeded random and a
last-ready order with the nested schedulers varied too (each nested run
draws its own order); then the compiled plan
(:class:`~sonnx.execution.plan.GraphPlan`, whose control-flow operations
run their bodies through the same ``GraphScope.run_nested``). Where the
runner reports that a Loop ran out of fuel, ``fire`` must reach the states it
printed before, then raise :class:`~tests.common.coq_nested.OutOfFuel` at the
operation it names, and ``run`` and the plan must raise it in every order
compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from sonnx.execution.plan import GraphPlan
from sonnx.model import semantics as real_semantics
from sonnx.model.graph import Graph, Operation

from .coq_diff import Case, CoqResult, _compare_run, guarded, memory_mode_differences, run_driver, step_differences
from .coq_nested import (
    UNDEF,
    Counts,
    NestedInterpretation,
    NestedPlanInterpretation,
    OutOfFuel,
    _c1,
    _defined_at_end,
    bodies_with_depth,
    c1_everywhere,
    encode_nested,
    nested_factory,
)


def run_coq_nested(runner: Path, cases: Sequence[Case]) -> list[CoqResult]:
    """Run the extracted runner once on the nested blocks of all ``cases``."""
    return run_driver(runner, "".join(encode_nested(c) for c in cases), len(cases))


def _schedules(sem: ModuleType, case: Case, seed: int) -> list[tuple[str, Any, Callable[[], Any]]]:
    """The (name, main scheduler, nested factory) pairs a run is compared under."""
    runs: list[tuple[str, Any, Callable[[], Any]]] = [("file order", sem.FileOrder(), sem.FileOrder)]
    if c1_everywhere(case):
        runs += [
            ("seeded random, nested random", sem.SeededRandomOrder(seed), nested_factory(sem.SeededRandomOrder, seed)),
            ("last ready, nested last ready", sem.LastReadyOrder(), sem.LastReadyOrder),
            ("file order, nested random", sem.FileOrder(), nested_factory(sem.SeededRandomOrder, seed + 7)),
        ]
    return runs


def nested_differences(case: Case, coq: CoqResult, sem: ModuleType = real_semantics, seed: int = 0) -> list[str]:
    """Every way ``sem`` (the semantics module, or a planted copy) disagrees with ``run_ng`` on ``case``."""
    try:
        return _nested_differences(case, coq, sem, seed)
    except Exception as error:  # an undefined body output (KeyError) included: the generator rules it out
        return [f"unexpected {type(error).__name__}: {error}"]


def _nested_differences(case: Case, coq: CoqResult, sem: ModuleType, seed: int) -> list[str]:
    g, interp = case.graph, NestedInterpretation()
    found: list[str] = []
    if UNDEF in coq.values.values() or UNDEF in coq.outputs:
        found.append("Coq filled an undefined body output, which the generator rules out")
    start = sem.initial_state(g, case.inputs, case.inits, case.outer)
    if coq.out_of_fuel is not None:
        return found + _out_of_fuel_differences(case, coq, sem, start, seed)
    state, stepped = step_differences(sem, g, start, coq, interp)
    found += stepped
    if state is None:
        return found
    for name, scheduler, nested in _schedules(sem, case, seed):
        found += _compare_run(g, sem.run(g, start, interp, scheduler, nested), coq, sem, name)
    return found


def _out_of_fuel_differences(case: Case, coq: CoqResult, sem: ModuleType, start: Any, seed: int) -> list[str]:
    """Where the runner's Loop ran out of fuel at main operation I: ``fire`` in file order gives the printed
    states, then raises :class:`OutOfFuel` at I; ``run`` raises it in every order compared."""
    g, interp, state = case.graph, NestedInterpretation(), start
    assert coq.out_of_fuel is not None
    for i, after in coq.steps:
        first = sem.executable(g, state)
        if not first or first[0] != i:
            return [f"file order before running out of fuel: Python would fire {first[:1]}, Coq fired {i}"]
        state = sem.fire(g, state, i, interp)
        if dict(state.values) != after:
            return [f"fire {i} before running out of fuel: Python {dict(state.values)} != Coq {after}"]
    first = sem.executable(g, state)
    if not first or first[0] != coq.out_of_fuel:
        return [f"file order: Python would fire {first[:1]}, Coq's operation {coq.out_of_fuel} runs out of fuel"]
    found = _raises_out_of_fuel(lambda: sem.fire(g, state, coq.out_of_fuel, interp), f"fire {coq.out_of_fuel}")
    for name, scheduler, nested in _schedules(sem, case, seed):
        found += _raises_out_of_fuel(partial(sem.run, g, start, interp, scheduler, nested), f"run ({name})")
    return found


def _raises_out_of_fuel(attempt: Callable[[], object], who: str) -> list[str]:
    try:
        attempt()
    except OutOfFuel:
        return []
    return [f"{who}: gave a result where Coq's Loop runs out of fuel"]


def nested_plan_differences(case: Case, coq: CoqResult, seed: int = 0) -> list[str]:
    """Every way the compiled plan disagrees with ``run_ng`` on ``case`` (file order, memory mode, random order)."""
    return guarded(lambda: _nested_plan_differences(case, coq, seed), "plan")


def _nested_plan_differences(case: Case, coq: CoqResult, seed: int) -> list[str]:
    g = case.graph
    seeded = dict(real_semantics.initial_state(g, case.inputs, case.inits, case.outer).values)
    interp: Any = NestedPlanInterpretation()
    plan = GraphPlan(g, interp, seeded, None)
    found: list[str] = []
    if coq.out_of_fuel is not None:
        for name, scheduler, nested in _schedules(real_semantics, case, seed):
            order = None if name == "file order" else scheduler
            found += _raises_out_of_fuel(partial(plan.run, dict(seeded), order, nested), f"plan ({name})")
        return found
    for name, scheduler, nested in _schedules(real_semantics, case, seed):
        values = plan.run(dict(seeded), None if name == "file order" else scheduler, nested)
        if values != coq.values:
            found.append(f"plan ({name}): values {values} != Coq {coq.values}")
    return found + memory_mode_differences(g, interp, seeded, coq)


def coverage(cases: Sequence[Case], results: Sequence[CoqResult]) -> dict[str, int]:
    """How many ``cases`` show each hard case (bodies counted only when they ran, as the mirror saw it)."""
    counts: dict[str, int] = {}

    def count(what: str, holds: bool) -> None:
        counts[what] = counts.get(what, 0) + int(holds)

    for case, coq in zip(cases, results, strict=True):
        seen = Counts()
        real_semantics.run(
            case.graph,
            real_semantics.initial_state(case.graph, case.inputs, case.inits, case.outer),
            NestedInterpretation(seen),
            real_semantics.FileOrder(),
        )
        ran = [(g, d) for g, d in bodies_with_depth(case.graph) if id(g) in seen.ran]
        main_names = _main_names(case)
        ops = [op for g, _ in ran for op in g.operations]
        count("GRAPH-C1 at every depth", c1_everywhere(case))
        count("GRAPH-C1 violated in a body that ran", any(not _c1(g, set()) for g, _ in ran))
        count("If took the then branch", seen.branches[True] > 0)
        count("If took the else branch", seen.branches[False] > 0)
        count("Loop ran no iteration", seen.iterations.get(0, 0) > 0)
        count("Loop ran 2 or 3 iterations", seen.iterations.get(2, 0) + seen.iterations.get(3, 0) > 0)
        count("a Loop scan output whose values vary over the iterations", seen.scanned > 0)
        count("a body ran at depth 2", any(d == 2 for _, d in ran))
        count("a body ran at depth 3", any(d == 3 for _, d in ran))
        count(
            "a body that ran captured a main tensor two levels up",
            any(d >= 2 and g.captures & main_names for g, d in ran),
        )
        count("a body that ran shadowed a main tensor", any(g.defined_names & main_names for g, _ in ran))
        count("a body that ran left an operation unfired", any(_unfired(g) for g, _ in ran))
        count("a table operation omitted an input in a body that ran", any("" in op.input_mapping for op in ops))
        count("a Loop without M", any(op.operator == "Loop" and op.input_mapping[0] == "" for op in _all_ops(case)))
        count(
            "a Loop without M ended by its condition after 3 or more iterations",
            any(n >= 3 for n in seen.condition_only),
        )
        count(
            "a Loop without condition",
            any(op.operator == "Loop" and op.input_mapping[1] == "" for op in _all_ops(case)),
        )
        count("a main capture given by the outer scope", bool(case.outer))
        count("a main capture without a value", bool(set(case.graph.captures) - set(case.outer)))
        count("an undefined main output", None in coq.outputs)
        count("a main operation did not fire", len(coq.fired) < len(case.graph.operations))
    return counts


def _main_names(case: Case) -> set[str]:
    g = case.graph
    return (
        set(g.inputs) | set(case.inits) | {n for op in g.operations for n in op.output_mapping if n} | set(g.captures)
    )


def _all_ops(case: Case) -> list[Operation]:
    return [*case.graph.operations, *(op for g, _ in bodies_with_depth(case.graph) for op in g.operations)]


def _unfired(graph: Graph) -> bool:
    """Whether some operation of ``graph`` fires in no maximal run (a cycle, or an input nothing defines)."""
    defined = _defined_at_end(graph)
    return any(not all(n in defined for n in op.required_inputs) for op in graph.operations)
