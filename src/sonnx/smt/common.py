"""Shared pieces of the rule encodings: result type, how a proof asks for answers, verdict and SMT-LIB helpers.

A rule's proof is a generator (:data:`Proof`): it yields the obligations it
needs answered, as a list of :class:`Ask`, receives z3's answers in the same
order, and returns its :class:`RuleResult`. The engine (:mod:`.engine`)
decides where each obligation is solved (this process or a worker of
:mod:`.pool`) and meanwhile runs the next rule's Python; :func:`drive` solves
them here, one after the other (the tools and tests that call one rule).
Nothing in a proof depends on where or when its obligations were solved.

Each encoding module declares itself with one :class:`Encoding` record: its
rule ID, its proof (started from a :class:`ProofContext`, the one signature
of every encoding) and the encodings whose results it needs. The table of
those records is :mod:`.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import brief, first
from ..model.graph import Model
from ..rules.base import Listing
from ..rules.declarations import Declarations
from .facts import ScopeFacts
from .smtlib import Obligation
from .solver import Answer, SolverSettings, solve

ENGINE = "smt"

Classes = dict[tuple[int, int], tuple[int, str]]
"""(scope index, operation index) -> (class, reason), for every operation GRAPH-R2's encoding did not put in class 0."""


@dataclass
class RuleResult:
    verdict: Verdict
    obligations: list[Obligation] = field(default_factory=list)
    classes: Classes | None = None
    """GRAPH-R2's classification of the operations, read by the encodings that need it (GRAPH-DETERMINISM).

    None when it is not known (the solver's answer gave no model, the
    encoding failed) and for every other rule; empty when the solver proved
    every operation deterministic.
    """


@dataclass(frozen=True)
class Ask:
    """One obligation a proof needs answered."""

    ob: Obligation
    difference_logic: bool = False
    local: bool = False
    """Solve it in this process and keep z3's solver in the answer: the rule reads a model, a core or
    further checks from it. Otherwise the answer is z3's word and reason only, from wherever it was solved."""


T = TypeVar("T")
Asking = Generator[list[Ask], list[Answer], T]
"""A computation that yields obligations to solve and receives their answers, in order."""
Proof = Asking[RuleResult]
"""One rule's proof."""


@dataclass(frozen=True)
class ProofContext:
    """What an encoding's proof starts from: the same for every encoding, so that one loop can start them all."""

    model: Model
    facts: Sequence[ScopeFacts]
    """The raw facts of every graph of the model (:func:`.facts.model_facts`), computed once per run."""
    settings: SolverSettings
    mode: str
    """``search`` or ``certificate`` (see :mod:`.engine`)."""
    needed: Mapping[str, RuleResult] = field(default_factory=dict)
    """The results of the encodings named in the encoding's :attr:`Encoding.needs`, by rule ID, and nothing else."""
    declarations: Declarations | None = None
    """The user's facts about custom operators (:mod:`sonnx.rules.declarations`), the same record the direct
    rules read: GRAPH-R2's table rows and GRAPH-ARITY's signatures for operators no ONNX schema defines."""


@dataclass(frozen=True)
class Encoding:
    """One rule's SMT encoding, as the table of :mod:`.registry` lists it (one per module of ``encodings/``).

    ``rule_id`` is the ID constant of the direct rule's module (only the
    constant: an encoding never calls the direct rule's checking code, so
    the two engines agreeing means something). ``prove`` starts the proof;
    ``needs`` names the encodings (by rule ID) whose results it reads from
    :attr:`ProofContext.needed`: the engine starts it once they are done.
    """

    rule_id: str
    prove: Callable[[ProofContext], Proof]
    needs: tuple[str, ...] = ()


def ask(obs: list[Obligation], difference_logic: bool = False, local: bool = False) -> Asking[list[Answer]]:
    """Have ``obs`` solved (all at once: they may be solved in parallel); record and return the answers in order."""
    answers = yield [Ask(ob, difference_logic, local) for ob in obs]
    for ob, a in zip(obs, answers, strict=True):
        record(ob, a)
    return answers


def ask_one(ob: Obligation, difference_logic: bool = False, local: bool = False) -> Asking[Answer]:
    (a,) = yield from ask([ob], difference_logic, local)
    return a


def drive(proof: Asking[T], settings: SolverSettings) -> T:
    """Run ``proof`` to its end, solving each obligation it asks for in this process, in order."""
    try:
        asks = next(proof)
        while True:
            asks = proof.send([solve(a.ob.script(), settings, a.difference_logic) for a in asks])
    except StopIteration as stop:
        return stop.value


def proved(rule_id: str, mode: str, severity: Severity = Severity.ERROR) -> Verdict:
    return Verdict.proved(rule_id, severity, engine=f"{ENGINE}/{mode}")


def violated(
    rule_id: str, summary: str, data: dict[str, Any], mode: str, severity: Severity = Severity.ERROR
) -> Verdict:
    return Verdict.violated(rule_id, Witness(summary, {**data, "mode": mode}), severity, engine=ENGINE)


def unknown(rule_id: str, reason: str, mode: str, severity: Severity = Severity.ERROR) -> Verdict:
    return Verdict.unknown(rule_id, f"{reason} [smt/{mode}]", severity, engine=ENGINE)


def record(ob: Obligation, answer: Answer) -> None:
    """Keep z3's answer in the obligation (it becomes the expected answer of the exported file)."""
    ob.answer = answer.result


def settled(
    rule_id: str, ob: Obligation | list[Obligation], ans: Answer, mode: str, proof: str = "unsat"
) -> RuleResult | None:
    """The rule's result when the answer ``ans`` to ``ob`` settles it alone, else None (a witness to read).

    ``proof`` is the answer that proves the rule (``unsat``: no violation
    exists); ``unknown`` gives UNKNOWN with z3's reason. ``ob`` may be the
    list of obligations (the parts of a certificate) whose answer ``ans`` is.
    """
    obs = ob if isinstance(ob, list) else [ob]
    if ans.result == proof:
        return RuleResult(proved(rule_id, mode), obs)
    if ans.result == "unknown":
        return RuleResult(unknown(rule_id, ans.reason, mode), obs)
    return None


def listed(
    rule_id: str, found: Sequence[dict[str, Any]], listing: Listing, mode: str, obs: list[Obligation]
) -> RuleResult:
    """VIOLATED with every offender in ``found`` (each confirmed by the solver), worded by the rule's ``listing``.

    The summary reads ``<count> <what>: <the first few shown>``; the data
    holds ``count`` and, under the listing's key, the first offenders
    (witness lists are bounded). The direct engine words the same rule's
    witness with the same listing, so both engines' verdicts read alike.
    """
    shown = [listing.show(x) for x in found]
    summary = f"{len(found)} {listing.what}: {brief(shown, listing.keep or 5)}"
    return RuleResult(violated(rule_id, summary, {"count": len(found), listing.key: first(found)}, mode), obs)


def rejected(rule_id: str, ob: Obligation, what: str, mode: str) -> RuleResult:
    """An untrusted certificate or counter-certificate the solver did not accept: UNKNOWN, never a fallback.

    The producers of :mod:`.certify` are deterministic, so a rejection is a
    defect of sonnx; the verdict says so instead of starting an unbounded search.
    """
    return RuleResult(
        unknown(rule_id, f"the solver rejected the {what} (answer {ob.answer}): a tool defect", mode), [ob]
    )


PART = 60_000
"""Most ground instances one certificate obligation holds; a larger certificate is checked in parts.

z3's SMT-LIB front end keeps memory for every distinct numeral of a script,
and a certificate at a million operations mentions every tensor id. A
conjunction of ground instances holds exactly when each part of it holds, so
each part is its own obligation, solved in a fresh context that is freed
before the next: the peak is that of one part. Smaller parts lower the peak
in about the same time in one process; with solver workers each part also
costs a context made and freed, and this size was the faster of those tried
on the 1M-operation benchmark DAG (figures: benchmarks/README.md, "Figures
behind choices in the code").
"""


def ground_obligations(
    rule_id: str, name: str, logic: str, head: list[str], items: Sequence[str], meaning: str
) -> list[Obligation]:
    """The conjunction of ``items`` (ground instances, ``head`` before them) as obligations of :data:`PART` each.

    Each obligation is named ``name``, or ``name.part<k>`` when there are several.
    """
    n = max(1, -(-len(items) // PART))
    obs: list[Obligation] = []
    for k in range(n):
        chunk = items[k * PART : (k + 1) * PART]
        tag = f"{name}.part{k}" if n > 1 else name
        what = f"{meaning} (part {k + 1} of {n})" if n > 1 else meaning
        obs.append(Obligation(rule_id, tag, logic, [*head, *conj(chunk)], "sat", "certificate", what))
    return obs


Group = tuple[str, list[str], Sequence[str], str]
"""One conjunction of ground instances of a certificate: (obligation name, head lines, instances, meaning)."""


def certificate_verdict(
    rule_id: str,
    name: str,
    build: Callable[[], tuple[list[str], Sequence[str]]],
    meaning: str,
    certificate: str,
    missing: str | None = None,
) -> Proof:
    """Have the solver check the certificate ``build()`` writes (head, ground items): PROVED on sat.

    ``unknown`` is UNKNOWN with z3's reason, ``unsat`` a rejected
    ``certificate`` (UNKNOWN, never a fallback). ``missing`` words the tool
    defect when ``build`` finds no record for a key (a ``KeyError``).
    """
    return (yield from certificate_groups(rule_id, lambda: [(name, *build(), meaning)], certificate, missing))


def certificate_groups(
    rule_id: str, build: Callable[[], list[Group]], certificate: str, missing: str | None = None
) -> Proof:
    """:func:`certificate_verdict` of a certificate written as several conjunctions (``build()``), all asked at once.

    The certificate holds when every instance of every group does, so each
    group is checked part by part as one alone would be; the first answer
    that is not ``sat``, in group and part order, decides.
    """
    try:
        groups = build()
    except KeyError as exc:
        if missing is None:
            raise
        return RuleResult(unknown(rule_id, f"{missing} {exc} (a tool defect)", "certificate"))
    obs = [ob for name, head, items, what in groups
           for ob in ground_obligations(rule_id, name, "QF_LIA", head, items, what)]
    answers = yield from ask(obs)
    ans = next((a for a in answers if a.result != "sat"), answers[-1])
    if ans.result == "sat":
        return RuleResult(proved(rule_id, "certificate"), obs)
    if ans.result == "unknown":
        return RuleResult(unknown(rule_id, ans.reason, "certificate"), obs)
    bad = next(ob for ob in obs if ob.answer != "sat")
    return RuleResult(rejected(rule_id, bad, certificate, "certificate").verdict, obs)


def distinct(items: Iterable[str]) -> list[str]:
    """``items`` without repetitions, first occurrences in order.

    Used on certificate obligations only: there every assertion is ground (the
    certificate's numbers are written in place), and asserting a formula twice
    says nothing more than asserting it once, so dropping repeats leaves the
    obligation equivalent. At a million operations most firing-time, distance
    and rank assertions repeat (benchmarks/README.md, "Figures behind choices
    in the code"), and z3's parser pays for every byte.
    """
    return list(dict.fromkeys(items))


def conj(items: Iterable[str], size: int = 512) -> list[str]:
    """Assertions of the conjunction of ``items``, ``size`` conjuncts per line (one line = one ``assert``)."""
    xs = items if isinstance(items, list) else list(items)
    out = [f"(assert (and {' '.join(xs[k : k + size])}))" for k in range(0, len(xs) - size + 1, size)]
    rest = xs[len(out) * size :]
    if len(rest) == 1:
        out.append(f"(assert {rest[0]})")
    elif rest:
        out.append(f"(assert (and {' '.join(rest)}))")
    return out


def facts_lines(items: Iterable[str]) -> list[str]:
    """One ``(assert fact)`` line per raw fact (readable: search-mode obligations are small)."""
    return [f"(assert {x})" for x in items]


def or_all(terms: list[str]) -> str:
    """The disjunction of ``terms`` (``false`` when there is none)."""
    return _fold("or", "false", terms)


def _fold(op: str, unit: str, terms: list[str]) -> str:
    """``(op t1 t2 ...)``, the one term alone, or ``unit`` (the operator's neutral element) for none."""
    if not terms:
        return unit
    if len(terms) == 1:
        return terms[0]
    return f"({op} " + " ".join(terms) + ")"
