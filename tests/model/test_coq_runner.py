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

``SONNX_COQ_DIFF_GRAPHS`` sets how many graphs (3000 by default, as CI runs;
``make coq-diff-long`` runs 60000). Without ``coqc`` or ``ocamlfind`` the
tests are a strict xfail: CI installs Debian's coq, so there they run.
"""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.common import coq_diff, coq_plants
from tools import coq_runner

GRAPHS = int(os.environ.get("SONNX_COQ_DIFF_GRAPHS", "3000"))
SEED = 35

needs_runner = pytest.mark.xfail(
    condition=bool(coq_runner.missing_tools()),
    reason="coqc or ocamlfind not found: the extracted runner cannot be built (apt-get install coq)",
    raises=coq_runner.RunnerUnavailable,
    strict=True,
)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return coq_runner.build(tmp_path_factory.mktemp("coq-runner"))


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


@pytest.mark.rule("GRAPH-C1")
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
