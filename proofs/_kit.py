"""Shared machinery of the proof modules: obligations, a deterministic z3 call, the report.

An obligation is a closed first-order formula that must be *valid*. It is
checked by asking z3 whether its negation is satisfiable, with a fixed random
seed and a resource limit (``rlimit``) rather than a wall-clock timeout, so a
run is reproducible on any machine. Only ``unsat`` of the negation counts as a
proof; ``sat`` (a counterexample) and ``unknown`` (limit reached, incomplete
quantifier reasoning) both make the theorem FAILED.

Two more checks keep a PROVED honest:

* **vacuity**: for an obligation ``hypotheses => conclusion`` (or a
  conjunction of such implications), the hypotheses themselves must be shown
  satisfiable; when z3 finds them unsatisfiable (or cannot decide), the
  obligation is FAILED, because an implication from a contradiction proves
  nothing;
* **review items**: an obligation that rests on a hand-written axiom or an
  induction-schema instance (z3 cannot refute a mis-stated axiom: it is taken
  as given) names it in ``rests_on``, and a theorem may add steps proved
  outside z3 (a cited lemma, a prose argument). The verdict then reads
  "PROVED, resting on N review items", never a bare PROVED, and lists them.
  An obligation that holds by construction of its own model is marked
  ``evidence=False`` with the reason, and is not counted as evidence;
* **Coq**: a review item whose exact statement a Coq theorem of
  ``proofs/coq/`` proves (listed in ``proofs/coq/theorems.txt``, checked by
  ``python -m tools.coq_check``) is not counted: the result maps it to that
  theorem's full name, and the report prints the citation instead.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
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
    rests_on: tuple[str, ...] = ()
    """Hand-written axioms or induction instances inside ``formula`` that z3 takes as given (review items)."""
    evidence: bool = True
    """False for an obligation that holds by construction of its model: checked, but not counted as evidence."""
    why_not_evidence: str = ""


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
    rests_on: tuple[str, ...] = ()
    evidence: bool = True
    obligation: bool = False
    """True for a discharged :class:`Obligation`; False for a sanity check, a counterexample or a premise."""


@dataclass
class Result:
    """A theorem's result: every outcome, whether all of them hold, and the steps z3 did not check.

    ``steps`` are review items outside every obligation: a cited lemma or a
    prose (meta-level) argument the theorem's statement relies on.
    """

    theorem: str
    outcomes: list[Outcome] = field(default_factory=list)
    steps: tuple[str, ...] = ()
    coq: dict[str, str] = field(default_factory=dict)
    """Review items proved in Coq: item text -> full name of the Coq theorem (not counted in the verdict)."""

    @property
    def proved(self) -> bool:
        return bool(self.outcomes) and all(o.ok for o in self.outcomes)

    def _all_items(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for o in self.outcomes:
            seen.update(dict.fromkeys(o.rests_on))
        seen.update(dict.fromkeys(self.steps))
        return tuple(seen)

    @property
    def review_items(self) -> tuple[str, ...]:
        """Every hand-written axiom, induction instance, cited or prose step not proved in Coq, once each."""
        return tuple(item for item in self._all_items() if item not in self.coq)

    @property
    def coq_items(self) -> tuple[tuple[str, str], ...]:
        """(item, Coq theorem) for every step of the result that a Coq theorem proves instead of a review."""
        return tuple((item, self.coq[item]) for item in self._all_items() if item in self.coq)

    @property
    def evidence_count(self) -> tuple[int, int]:
        """(obligations counted as evidence, all obligations); other outcomes are checks, not obligations."""
        obs = [o for o in self.outcomes if o.obligation]
        return sum(1 for o in obs if o.evidence), len(obs)

    @property
    def verdict(self) -> str:
        """FAILED, PROVED, or "PROVED, resting on N review items (...)" when some step is not machine-checked."""
        if not self.proved:
            return "FAILED"
        n = len(self.review_items)
        if n == 0:
            return "PROVED"
        noun = "review item" if n == 1 else "review items"
        return f"PROVED, resting on {n} {noun} (hand-written axioms, cited or prose steps z3 did not check)"

    @property
    def uses_hypotheses(self) -> bool:
        """Some discharged obligation fails when its hypotheses are dropped (the theorem is not vacuous in them)."""
        return any(o.ok and o.needs_hypotheses for o in self.outcomes)


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(textwrap.fill(item, 76, initial_indent=" - ", subsequent_indent="   ") for item in items)


def review_note(items: Sequence[str], coq: Mapping[str, str] | None = None) -> str:
    """The closing paragraph of a ``THEOREM`` text: its review items, then the steps proved in Coq instead.

    ``coq`` maps an item to the Coq theorem proving its exact statement: such
    an item is listed with that citation and not as a review item.
    """
    coq = coq or {}
    left = [item for item in items if item not in coq]
    cited = [f"{item} -- proved in Coq: {coq[item]}" for item in items if item in coq]
    text = ""
    if left:
        text += f"\nReview items (steps z3 does not check; the verdict counts them):\n{_bullets(left)}\n"
    if cited:
        text += f"\nSteps proved in Coq (proofs/coq/, not counted as review items):\n{_bullets(cited)}\n"
    return text


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


def antecedents(formula: z3.BoolRef) -> list[z3.BoolRef]:
    """The hypotheses of ``formula``: of ``a => c`` itself, of every conjunct of a conjunction, else none.

    Only the top-level structure is read (an implication under a quantifier
    binds variables and is the conclusion's business, not a hypothesis).
    """
    if z3.is_implies(formula):
        return [formula.arg(0)]
    if z3.is_and(formula):
        return [h for part in formula.children() for h in antecedents(part)]
    return []


def vacuity(formula: z3.BoolRef) -> str:
    """Empty when every antecedent of ``formula`` is satisfiable; else why the obligation may be vacuous."""
    for k, hyp in enumerate(antecedents(formula)):
        a = solve([hyp])
        if a.status != "sat":
            which = f"hypotheses #{k + 1}" if z3.is_and(formula) else "the hypotheses"
            shown = "unsatisfiable" if a.status == "unsat" else f"not shown satisfiable ({a.reason})"
            return f"vacuous: {which} {shown}, so the implication proves nothing"
    return ""


def discharge(ob: Obligation) -> Outcome:
    """Check that ``ob.formula`` is valid and not vacuous; anything else is a failure.

    Valid means unsat of its negation. Not vacuous: every antecedent (see
    :func:`antecedents`) is satisfiable. For ``hypotheses => conclusion``, also
    ask whether the conclusion alone is valid, to tell obligations that use
    their hypotheses from those that would hold anyway
    (:attr:`Outcome.needs_hypotheses`).
    """
    out = _discharge(ob)
    out.rests_on = ob.rests_on
    out.obligation = True
    return not_evidence(out, ob.why_not_evidence) if not ob.evidence else out


def _discharge(ob: Obligation) -> Outcome:
    a = solve([z3.Not(ob.formula)])
    if a.status == "sat":
        return Outcome(ob.name, False, f"counterexample: {a.model}")
    if a.status != "unsat":
        return Outcome(ob.name, False, f"unknown ({a.reason})")
    empty = vacuity(ob.formula)
    if empty:
        return Outcome(ob.name, False, empty)
    if not z3.is_implies(ob.formula):
        tail = "; the hypotheses are satisfiable" if antecedents(ob.formula) else ""
        return Outcome(ob.name, True, f"valid (negation unsat){tail}")
    alone = solve([z3.Not(ob.formula.arg(1))])
    if alone.status == "unsat":
        return Outcome(
            ob.name,
            True,
            "valid (negation unsat); the conclusion holds without the hypotheses: not counted as evidence",
            needs_hypotheses=False,
            evidence=False,
        )
    needed = alone.status == "sat"
    tail = "the hypotheses are satisfiable and needed" if needed else f"without the hypotheses: {alone.status}"
    return Outcome(ob.name, True, f"valid (negation unsat); {tail}", needs_hypotheses=needed)


def not_evidence(outcome: Outcome, why: str) -> Outcome:
    """``outcome``, marked as excluded from the evidence with the reason shown in its detail."""
    outcome.evidence = False
    outcome.detail += f"; not evidence: {why}"
    return outcome


def satisfiable(name: str, formulas: Sequence[z3.BoolRef]) -> Outcome:
    """A satisfiability check of ``formulas`` (a model exists): ok on ``sat`` only."""
    a = solve(formulas)
    if a.status == "sat":
        return Outcome(name, True, "satisfiable")
    return Outcome(name, False, f"not shown satisfiable: {a.status}")


def run_obligations(
    theorem: str,
    obligations: Sequence[Obligation],
    extra: Sequence[Outcome] = (),
    steps: Sequence[str] = (),
    coq: Mapping[str, str] | None = None,
) -> Result:
    """Discharge every obligation after the ``extra`` outcomes; ``steps`` are review items outside z3.

    ``coq`` maps the items a Coq theorem proves to its full name (see :attr:`Result.coq`).
    """
    res = Result(theorem, steps=tuple(steps), coq=dict(coq or {}))
    res.outcomes.extend(extra)
    for ob in obligations:
        res.outcomes.append(discharge(ob))
    return res


def report(result: Result, statement: str) -> int:
    """Print the verdict, what was proved, each outcome and each review item; return the exit code."""
    print(f"{result.verdict}: {result.theorem}")
    print(statement.strip())
    for o in result.outcomes:
        print(f"  [{'ok' if o.ok else 'FAIL'}] {o.name}: {o.detail}")
    counted, total = result.evidence_count
    others = len(result.outcomes) - total
    print(f"  evidence: {counted} of {total} obligations ({total - counted} not evidence), besides {others} checks")
    for item in result.review_items:
        print(f"  review item: {item}")
    for item, name in result.coq_items:
        print(f"  proved in Coq ({name}): {item}")
    return 0 if result.proved else 1


def outcomes_record(result: Result) -> list[dict[str, object]]:
    """The outcomes as plain data (for ``--json`` and for comparing runs)."""
    return [
        {
            "name": o.name,
            "ok": o.ok,
            "detail": o.detail,
            "needs_hypotheses": o.needs_hypotheses,
            "rests_on": list(o.rests_on),
            "evidence": o.evidence,
            "obligation": o.obligation,
        }
        for o in result.outcomes
    ]


def result_record(result: Result) -> dict[str, object]:
    """The whole result as plain data: verdict, review items and outcomes."""
    return {
        "theorem": result.theorem,
        "proved": result.proved,
        "verdict": result.verdict,
        "review_items": list(result.review_items),
        "proved_in_coq": [{"item": item, "coq": name} for item, name in result.coq_items],
        "outcomes": outcomes_record(result),
    }


def main(check: Callable[[], Result], statement: str) -> None:
    """Run the theorem; ``--json`` prints its outcomes as JSON instead of the report (exit code alike).

    ``--record FILE`` prints the report and also writes the JSON of ``--json`` to ``FILE``, so that one
    run serves a reader of the report and a reader of the outcomes (the test suite does).
    """
    args = sys.argv[1:]
    if args not in ([], ["--json"]) and not (len(args) == 2 and args[0] == "--record"):
        print("usage: python -m proofs.NAME [--json | --record FILE]", file=sys.stderr)
        sys.exit(2)
    result = check()
    if args == ["--json"]:
        print(json.dumps(result_record(result)))
        sys.exit(0 if result.proved else 1)
    if args:
        with open(args[1], "w", encoding="utf-8") as out:
            out.write(json.dumps(result_record(result)) + "\n")
    sys.exit(report(result, statement))
