"""The Python semantics against the runner extracted from the Coq development (spec section 3).

``proofs/coq/Extract.v`` extracts the file-order runner of the Coq semantics,
of which ``maximal_run_exists`` (termination, GRAPH-ACYCLIC) and
``runner_correct``/``order_independence`` (GRAPH-C1) are proved. These tests
run :func:`sonnx.model.semantics.run` (file order, and a seeded random and a
last-ready order where GRAPH-C1 holds) and :func:`~sonnx.model.semantics.fire`
step by step on generated graphs and require the same states, fired
operations and outputs, so the theorems are about what the Python executes.
Where an operator fails, the runner is ``erun_fuel`` of Errors.v: file order
must raise naming the same operation, and under GRAPH-C1 every order must
fail (``error_order_independence``), the plan's too; ``fire`` in file order
must reach the state the runner prints after each firing before the failure
(``error_trace_correct`` of ErrorTrace.v), then raise at the failed operation.
Bugs planted in copies of the semantics must be found.

Graphs with nested graphs (If and Loop whose bodies hold operations, to
depth 3) are compared with ``run_ng`` of Nested.v, extracted by
ExtractNested.v (``tests/common/coq_nested.py``): ``fire`` step by step,
``run`` and the compiled plan in file order, and under GRAPH-C1 at every
depth under other orders with every nested run drawing its own
(``nested_order_independence``); bugs planted in nested runs must be found.
A Loop without ``M`` runs while its condition holds; the runner gives every
Loop a fuel of 8 iterations and prints that a run ran out of it. The
generated graphs' Loops end within it; graphs where one does not must give
no result on both sides (``nested_diverging_loop_has_no_result``).

``SONNX_COQ_DIFF_GRAPHS`` sets how many flat graphs (3000 by default, as CI
runs; ``make coq-diff-long`` runs 60000), two thirds as many nested ones. Without ``coqc`` or ``ocamlfind`` the
tests are a strict xfail: CI installs Debian's coq, so there they run.
"""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.common import coq_diff, coq_nested, coq_nested_diff, coq_plants
from tools import coq_check, coq_runner

GRAPHS = int(os.environ.get("SONNX_COQ_DIFF_GRAPHS", "3000"))
NESTED_GRAPHS = max(1, GRAPHS * 2 // 3)
SEED = 35

needs_runner = pytest.mark.xfail(
    condition=bool(coq_runner.missing_tools()),
    reason="coqc or ocamlfind not found: the extracted runner cannot be built (apt-get install coq)",
    raises=coq_runner.RunnerUnavailable,
    strict=True,
)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The extraction the Coq step of make test kept for these very inputs is used when present.
    return coq_runner.build(tmp_path_factory.mktemp("coq-runner"), verified=coq_check.VERIFIED)


def _batches(count: int, seed: int) -> Iterator[list[coq_diff.Case]]:
    rng = random.Random(seed)
    for start in range(0, count, 2000):
        yield [coq_diff.generate(rng) for _ in range(min(2000, count - start))]


def _first_difference(
    runner: Path, count: int, sem: object = coq_diff.real_semantics, failure_steps: bool = True
) -> tuple[int, list[str]] | None:
    """The index of the first graph on which ``sem`` and the runner differ, with the differences."""
    index = 0
    for cases in _batches(count, SEED):
        for case, coq in zip(cases, coq_diff.run_coq(runner, cases), strict=True):
            found = coq_diff.differences(case, coq, sem, index, failure_steps)  # type: ignore[arg-type]
            if found:
                return index, found
            index += 1
    return None


@needs_runner
def test_semantics_agrees_with_the_extracted_runner(runner: Path) -> None:
    assert _first_difference(runner, GRAPHS) is None


@needs_runner
def test_compiled_plan_agrees_with_the_extracted_runner(runner: Path) -> None:
    index = 0
    for cases in _batches(GRAPHS, SEED):
        for case, coq in zip(cases, coq_diff.run_coq(runner, cases), strict=True):
            assert coq_diff.plan_differences(case, coq, index) == [], index
            index += 1


@pytest.mark.rule("GRAPH-C1", "GRAPH-C1-SOURCES")
@needs_runner
def test_the_generated_graphs_cover_the_hard_cases(runner: Path) -> None:
    """The graphs include what the audit found missing: without these the agreement says little."""
    cases = next(_batches(2000, SEED))
    results = coq_diff.run_coq(runner, cases)
    ops = [op for c in cases for op in c.graph.operations]
    counts = {
        "GRAPH-C1 violated": sum(not c.c1_holds() for c in cases),
        "GRAPH-C1 holds": sum(c.c1_holds() for c in cases),
        "cycle": sum(coq_plants.has_cycle(c.graph) for c in cases),
        "implicit inputs": sum(bool(op.implicit_inputs) for op in ops),
        "omitted input": sum("" in op.input_mapping for op in ops),
        "omitted output": sum("" in op.output_mapping for op in ops),
        "outer value given": sum(bool(c.outer) for c in cases),
        "graph input without a value": sum(len(c.inputs) < len(c.graph.inputs) for c in cases),
        "dead operation": sum(len(r.fired) < len(c.graph.operations) for c, r in zip(cases, results, strict=True)),
        "undefined output": sum(None in r.outputs for r in results),
        "too few results fired": sum(coq_diff._short_fired(c, r) for c, r in zip(cases, results, strict=True)),
        "failing operator failed": sum(
            r.failed is not None and not coq_diff._short_fired(c, r) for c, r in zip(cases, results, strict=True)
        ),
        "failure after a firing": sum(r.failed is not None and bool(r.steps) for r in results),
        "failure under GRAPH-C1": sum(
            r.failed is not None and c.c1_holds() for c, r in zip(cases, results, strict=True)
        ),
        "failing operator fired, did not fail": sum(
            any(coq_diff._int(c.graph.operations[i], "code") == coq_diff.FAILING for i in r.fired)
            for c, r in zip(cases, results, strict=True)
        ),
    }
    assert all(n >= 20 for n in counts.values()), counts


@needs_runner
@pytest.mark.parametrize("plant", sorted(coq_plants.PLANTS))
def test_the_differential_finds_a_planted_bug(runner: Path, plant: str) -> None:
    sem = coq_plants.planted(plant, coq_plants.PLANTS[plant])
    found = _first_difference(runner, GRAPHS, sem)
    assert found is not None, f"{plant} not found in {GRAPHS} graphs"
    print(f"{plant}: found at graph {found[0]}: {found[1][0]}")


@needs_runner
@pytest.mark.parametrize("plant", sorted(coq_plants.FAILURE_STEP_PLANTS))
def test_fire_step_by_step_up_to_a_failure_finds_a_bug_the_end_of_the_run_hides(runner: Path, plant: str) -> None:
    """A bug of ``fire`` that only a failing run shows: comparing run's outcome misses it, fire's steps do not."""
    sem = coq_plants.planted(plant, coq_plants.FAILURE_STEP_PLANTS[plant])
    assert _first_difference(runner, GRAPHS, sem, failure_steps=False) is None, plant
    found = _first_difference(runner, GRAPHS, sem)
    assert found is not None, f"{plant} not found in {GRAPHS} graphs"
    print(f"{plant}: found at graph {found[0]}: {found[1][0]}")


@needs_runner
@pytest.mark.parametrize("line", ["inp 0 -1", "inp 0 1099511627776", "op 0 0 | 0 | | 1", "bogus 1"])
def test_the_driver_refuses_what_the_extraction_cannot_represent(runner: Path, line: str) -> None:
    """nat is extracted to int: exact only for small non-negative numbers, so others are refused."""
    done = subprocess.run([str(runner)], input=f"inputs 0\n{line}\nrun\n", capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("runner: "), done


NestedBatch = list[tuple[coq_diff.Case, coq_diff.CoqResult]]


@pytest.fixture(scope="module")
def nested_first(runner: Path) -> NestedBatch:
    """The first batch of nested graphs with the runner's results, shared by the nested tests."""
    rng = random.Random(SEED)
    cases = [coq_nested.generate_nested(rng) for _ in range(min(2000, NESTED_GRAPHS))]
    return list(zip(cases, coq_nested_diff.run_coq_nested(runner, cases), strict=True))


def _nested_batches(runner: Path, first: NestedBatch) -> Iterator[NestedBatch]:
    """``first``, then further batches of 2000 until NESTED_GRAPHS (for make coq-diff-long)."""
    yield first
    rng = random.Random(SEED + 1)
    for start in range(len(first), NESTED_GRAPHS, 2000):
        cases = [coq_nested.generate_nested(rng) for _ in range(min(2000, NESTED_GRAPHS - start))]
        yield list(zip(cases, coq_nested_diff.run_coq_nested(runner, cases), strict=True))


def _first_nested_difference(
    runner: Path, first: NestedBatch, sem: object = coq_diff.real_semantics
) -> tuple[int, list[str]] | None:
    """The index of the first nested graph on which ``sem`` and ``run_ng`` differ, with the differences."""
    index = 0
    for batch in _nested_batches(runner, first):
        for case, coq in batch:
            found = coq_nested_diff.nested_differences(case, coq, sem, index)  # type: ignore[arg-type]
            if found:
                return index, found
            index += 1
    return None


@needs_runner
def test_nested_semantics_agrees_with_the_extracted_run_ng(runner: Path, nested_first: NestedBatch) -> None:
    assert _first_nested_difference(runner, nested_first) is None


@needs_runner
def test_nested_compiled_plan_agrees_with_the_extracted_run_ng(runner: Path, nested_first: NestedBatch) -> None:
    index = 0
    for batch in _nested_batches(runner, nested_first):
        for case, coq in batch:
            assert coq_nested_diff.nested_plan_differences(case, coq, index) == [], index
            index += 1


@needs_runner
def test_the_nested_graphs_cover_the_hard_cases(nested_first: NestedBatch) -> None:
    """Bodies run at every depth, both branches, loops of 0 and several iterations, C1 broken inside."""
    counts = coq_nested_diff.coverage([c for c, _ in nested_first], [r for _, r in nested_first])
    assert all(n >= 20 for n in counts.values()), counts


@needs_runner
@pytest.mark.parametrize("plant", sorted(coq_plants.NESTED_PLANTS))
def test_the_nested_differential_finds_a_planted_bug(runner: Path, nested_first: NestedBatch, plant: str) -> None:
    sem = coq_plants.planted(plant, coq_plants.NESTED_PLANTS[plant])
    found = _first_nested_difference(runner, nested_first, sem)
    assert found is not None, f"{plant} not found in {NESTED_GRAPHS} nested graphs"
    print(f"{plant}: found at nested graph {found[0]}: {found[1][0]}")


@needs_runner
def test_a_loop_that_runs_out_of_fuel_has_no_result_on_either_side(runner: Path) -> None:
    """Graphs whose Loops need more than the fuel: the runner says so, and fire, run and the plan raise."""
    rng = random.Random(SEED + 2)
    cases = [coq_nested.generate_nested(rng, diverging=True) for _ in range(100)]
    results = coq_nested_diff.run_coq_nested(runner, cases)
    assert all(r.out_of_fuel is not None for r in results)
    for index, (case, coq) in enumerate(zip(cases, results, strict=True)):
        found = coq_nested_diff.nested_differences(case, coq, seed=index)
        assert found + coq_nested_diff.nested_plan_differences(case, coq, index) == [], index


@needs_runner
@pytest.mark.parametrize(
    "block",
    [
        "loop 7 | 0 - 1 | | 2\nrun",
        "op 4 0 1 | 0 | | 1\nrun",
        "op 0 0 2 | 0 | | 1\nrun",
        "body 0\ninputs\noutputs 1\nend\nif 0 0 | - | | 2\nrun",
        "body 0\ninputs 1 2\noutputs 2\nend\nloop 0 | - 3 | | 4\nrun",
        "body 0\ninputs\nrun",
        "end\nrun",
        "if 0 | 1 | | 2\nrun",
        "inputs 0",
        "inp 0 -1\nrun",
    ],
)
def test_the_driver_refuses_a_malformed_nested_block(runner: Path, block: str) -> None:
    """A body used before it is given, a table code the nested runner does not take, a result count other
    than the outputs, an If without condition, a Loop body without one value per output, a body without
    end, an end outside a body, an If without two bodies, a block without run, a negative value: each stops
    the driver with exit code 2."""
    done = subprocess.run([str(runner)], input=f"nested\n{block}\n", capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("runner: "), done
