"""Shared machinery of the proof modules: obligations, a deterministic z3 call, the report.

An obligation is a closed first-order formula that must be *valid*. It is
checked by asking z3 whether its negation is satisfiable, with a fixed random
seed and a resource limit (``rlimit``) rather than a wall-clock timeout, so a
run is reproducible on any machine. Only ``unsat`` of the negation counts as a
proof; ``sat`` (a counterexample) and ``unknown`` (limit reached, incomplete
quantifier reasoning) both make the theorem FAILED.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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
    """The answer for one obligation or one executable check.

    ``needs_hypotheses`` is set for an obligation of the form ``hypotheses =>
    conclusion``: True when the conclusion alone has a counterexample (the
    hypotheses do work), False when the conclusion holds without them (then
    the obligation is true but says nothing about the hypotheses and is not
    counted as evidence for them).
    """

    name: str
    ok: bool
    detail: str
    needs_hypotheses: bool | None = None


@dataclass
class Result:
    """A theorem's result: every outcome, and whether all of them hold."""

    theorem: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        return bool(self.outcomes) and all(o.ok for o in self.outcomes)

    @property
    def uses_hypotheses(self) -> bool:
        """Some discharged obligation fails when its hypotheses are dropped (the theorem is not vacuous in them)."""
        return any(o.ok and o.needs_hypotheses for o in self.outcomes)


def solver(ctx: z3.Context) -> z3.Solver:
    """A solver in ``ctx`` with the fixed seed and resource limit."""
    s = z3.Solver(ctx=ctx)
    s.set("random_seed", SEED)
    s.set("rlimit", RLIMIT)
    return s


@dataclass(frozen=True)
class Answer:
    """What z3 said about a set of formulas: ``sat``, ``unsat`` or ``unknown``, with the model or the reason."""

    status: str
    model: str = ""
    constants: tuple[tuple[str, str], ...] = ()
    reason: str = ""


def solve(formulas: Sequence[z3.BoolRef]) -> Answer:
    """Decide the conjunction of ``formulas`` in a z3 context of its own.

    The formulas are built wherever the theorem module built them (z3's main
    context); they are translated into a fresh :class:`z3.Context` and solved
    there. z3's search depends on everything a context has seen (term ids,
    learned lemmas, caches), so a shared context would make an answer depend
    on which obligations ran before it: a fresh context per query makes each
    answer a function of the query alone (seed and rlimit fixed).
    """
    ctx = z3.Context()
    s = solver(ctx)
    for f in formulas:
        s.add(f.translate(ctx))
    answer = s.check()
    if answer == z3.sat:
        m = s.model()
        consts = tuple(sorted((d.name(), str(m[d])) for d in m.decls() if d.arity() == 0))
        return Answer("sat", model=str(m), constants=consts)
    if answer == z3.unsat:
        return Answer("unsat")
    return Answer("unknown", reason=s.reason_unknown())


def discharge(ob: Obligation) -> Outcome:
    """Check that ``ob.formula`` is valid: unsat of its negation; anything else is a failure.

    For ``hypotheses => conclusion``, also ask whether the conclusion alone is
    valid, to tell obligations that use their hypotheses from those that would
    hold anyway (:attr:`Outcome.needs_hypotheses`).
    """
    a = solve([z3.Not(ob.formula)])
    if a.status == "unsat":
        if not z3.is_implies(ob.formula):
            return Outcome(ob.name, True, "valid (negation unsat)")
        alone = solve([z3.Not(ob.formula.arg(1))])
        if alone.status == "unsat":
            return Outcome(
                ob.name,
                True,
                "valid (negation unsat); the conclusion holds without the hypotheses: not counted as evidence",
                needs_hypotheses=False,
            )
        needed = alone.status == "sat"
        tail = "the hypotheses are needed" if needed else f"without the hypotheses: {alone.status}"
        return Outcome(ob.name, True, f"valid (negation unsat); {tail}", needs_hypotheses=needed)
    if a.status == "sat":
        return Outcome(ob.name, False, f"counterexample: {a.model}")
    return Outcome(ob.name, False, f"unknown ({a.reason})")


def satisfiable(name: str, formulas: Sequence[z3.BoolRef]) -> Outcome:
    """Sanity check: the hypotheses together are satisfiable (so a proof is not vacuous)."""
    a = solve(formulas)
    if a.status == "sat":
        return Outcome(name, True, "hypotheses satisfiable (not vacuous)")
    return Outcome(name, False, f"hypotheses not shown satisfiable: {a.status}")


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


def outcomes_record(result: Result) -> list[dict[str, object]]:
    """The outcomes as plain data (for ``--json`` and for comparing runs)."""
    return [
        {"name": o.name, "ok": o.ok, "detail": o.detail, "needs_hypotheses": o.needs_hypotheses}
        for o in result.outcomes
    ]


def main(check: Callable[[], Result], statement: str) -> None:
    """Run the theorem; ``--json`` prints its outcomes as JSON instead of the report (exit code alike)."""
    result = check()
    if sys.argv[1:] == ["--json"]:
        print(json.dumps({"theorem": result.theorem, "proved": result.proved, "outcomes": outcomes_record(result)}))
        sys.exit(0 if result.proved else 1)
    sys.exit(report(result, statement))
