"""Shared machinery of the proof modules: obligations, a deterministic z3 call, the report.

An obligation is a closed first-order formula that must be *valid*. It is
checked by asking z3 whether its negation is satisfiable, with a fixed random
seed and a resource limit (``rlimit``) rather than a wall-clock timeout, so a
run is reproducible on any machine. Only ``unsat`` of the negation counts as a
proof; ``sat`` (a counterexample) and ``unknown`` (limit reached, incomplete
quantifier reasoning) both make the theorem FAILED.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, List, Sequence

import z3

SEED = 7
"""The random seed of every z3 call (smt.random_seed and sat.random_seed)."""

RLIMIT = 20_000_000
"""Resource limit of one obligation (z3 ``rlimit`` units, machine independent)."""


@dataclass(frozen=True)
class Obligation:
    """One claim: ``formula`` must be valid (hypotheses are part of the formula)."""

    name: str
    formula: z3.BoolRef
    note: str = ""


@dataclass
class Outcome:
    """The answer for one obligation or one executable check."""

    name: str
    ok: bool
    detail: str


@dataclass
class Result:
    """A theorem's result: every outcome, and whether all of them hold."""

    theorem: str
    outcomes: List[Outcome] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        return bool(self.outcomes) and all(o.ok for o in self.outcomes)


def solver() -> z3.Solver:
    """A fresh solver with the fixed seed and resource limit."""
    s = z3.Solver()
    s.set("random_seed", SEED)
    s.set("rlimit", RLIMIT)
    return s


def discharge(ob: Obligation) -> Outcome:
    """Check that ``ob.formula`` is valid: unsat of its negation; anything else is a failure."""
    s = solver()
    s.add(z3.Not(ob.formula))
    answer = s.check()
    if answer == z3.unsat:
        return Outcome(ob.name, True, "valid (negation unsat)")
    if answer == z3.sat:
        return Outcome(ob.name, False, f"counterexample: {s.model()}")
    return Outcome(ob.name, False, f"unknown ({s.reason_unknown()})")


def satisfiable(name: str, formulas: Sequence[z3.BoolRef]) -> Outcome:
    """Sanity check: the hypotheses together are satisfiable (so a proof is not vacuous)."""
    s = solver()
    s.add(*formulas)
    answer = s.check()
    if answer == z3.sat:
        return Outcome(name, True, "hypotheses satisfiable (not vacuous)")
    return Outcome(name, False, f"hypotheses not shown satisfiable: {answer}")


def run_obligations(theorem: str, obligations: Sequence[Obligation], extra: Sequence[Outcome] = ()) -> Result:
    res = Result(theorem)
    res.outcomes.extend(extra)
    for ob in obligations:
        res.outcomes.append(discharge(ob))
    return res


def report(result: Result, statement: str) -> int:
    """Print PROVED or FAILED, what was proved, and each outcome; return the exit code."""
    verdict = "PROVED" if result.proved else "FAILED"
    print(f"{verdict}: {result.theorem}")
    print(statement.strip())
    for o in result.outcomes:
        print(f"  [{'ok' if o.ok else 'FAIL'}] {o.name}: {o.detail}")
    return 0 if result.proved else 1


def main(check: Callable[[], Result], statement: str) -> None:
    sys.exit(report(check(), statement))
