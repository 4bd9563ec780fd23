"""Run every SMT encoding on a model: one verdict per rule, engine ``smt``.

The encodings are the table of :mod:`.registry` (:data:`RULE_IDS`, in report
order); this module loops over it and names none of them. Their rule IDs are
those of the direct engine (GRAPH-ACYCLIC, GRAPH-C1, GRAPH-C1-SOURCES,
GRAPH-C1-SHADOWING, GRAPH-C2, GRAPH-C3,
GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-R2, GRAPH-DETERMINISM,
GRAPH-FUNCTION-SHADOWING and GRAPH-ARITY; the direct engine decides
GRAPH-DETERMINISM by reachability, this one by two-run congruence). The
rules about shapes (STRICT-BROADCAST, the shape part of GRAPH-IF-BRANCHES)
are not structural and have no encoding.

Mode: ``search`` (the solver finds the proof) for models of at most
``settings.search_limit`` operations (all graphs together; 1,000 by
default, where the slowest search, GRAPH-R1-TRANSITIVE's, still takes
seconds on random DAGs and grows steeply beyond: benchmarks/README.md,
"Figures behind choices in the code"),
``certificate`` above it (an untrusted algorithm proposes ranks,
firing times, distances...; Python writes each raw fact's instance of the
rule with those numbers in place and z3 evaluates the instances; a rejected
certificate is UNKNOWN, a tool defect, and nothing falls back to search).
Violations in either mode are confirmed by a counter-certificate that z3
checks against the raw facts. The mode that produced each verdict is in its
``engine`` string (``smt/search``, ``smt/certificate``) for PROVED verdicts,
in the witness data (``mode``) for VIOLATED ones and in the reason for
UNKNOWN ones.

An exception inside an encoding becomes UNKNOWN for that rule, never a pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..base.allocator import keep_freed_memory
from ..base.caching import gc_paused
from ..base.progress import Say, Steps, quiet
from ..base.verdict import Severity, Verdict
from ..model.graph import Model
from ..rules.declarations import Declarations
from . import registry
from .common import Ask, Encoding, Proof, ProofContext, RuleResult, unknown
from .facts import ScopeFacts, model_facts, total_operations
from .pool import Job, Solving, Ticket, open_solving
from .registry import RULE_IDS
from .sizes import POOL_MIN_OPERATIONS
from .smtlib import Obligation
from .solver import Answer, SolverSettings, settings_report, solve

__all__ = ["RULE_IDS", "RuleTiming", "SmtRun", "choose_mode", "run_smt"]


@dataclass
class RuleTiming:
    """Where one rule's time went (for the benchmarks; never in a report, which must not depend on the machine).

    CPU seconds, so that a loaded machine does not inflate them: ``encode``,
    the rule's Python in this process (certificates, instances, SMT-LIB
    text); ``parse`` and ``solve``, z3's parsing and checking summed over the
    rule's obligations, in whichever process solved them; ``worker_cpu``, all
    of a worker's time on them (freeing z3's context included).
    """

    encode: float = 0.0
    parse: float = 0.0
    solve: float = 0.0
    worker_cpu: float = 0.0
    """CPU seconds of worker processes on the rule's obligations (this process's own CPU time counts the rest)."""
    obligations: int = 0
    megabytes: float = 0.0


@dataclass
class SmtRun:
    verdicts: list[Verdict]
    obligations: list[Obligation] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    mode: str = "search"
    timings: dict[str, RuleTiming] = field(default_factory=dict)
    """Per rule ID (and ``facts`` for listing the raw facts); see :class:`RuleTiming`."""
    workers: int = 1
    """Processes that solved the obligations (1: this one); not in the report either."""


def choose_mode(facts: list[ScopeFacts], settings: SolverSettings) -> str:
    return "search" if total_operations(facts) <= settings.search_limit else "certificate"


def run_smt(
    model: Model,
    settings: SolverSettings | None = None,
    mode: str | None = None,
    progress: Say | None = None,
    jobs: int | None = None,
    solving: Solving | None = None,
    declarations: Declarations | None = None,
) -> SmtRun:
    """Prove every rule of :data:`RULE_IDS` on ``model`` with z3.

    ``declarations``: the user's facts about custom operators, which the encodings read as the direct rules do.

    ``jobs`` worker processes solve the obligations (None: every core; the
    pool starts only on large models, see :func:`.pool.open_solving`), or the
    given ``solving``, which the caller closes. The verdicts and obligations
    are the same whatever solves them.

    The cyclic garbage collector is paused meanwhile: the encodings build
    millions of tuples and strings, none in a reference cycle, and each
    collection would rescan the whole model (at a million operations, about a
    tenth of the proofs' time: benchmarks/README.md, "Figures behind choices
    in the code").

    On a model solved in this process (under :data:`.sizes.POOL_MIN_OPERATIONS`
    operations), the process keeps the memory it frees
    (:func:`sonnx.base.allocator.keep_freed_memory`): each obligation still
    gets its own fresh z3 context (:func:`.solver.make_solver`), which then
    reuses the pages of a context already freed instead of faulting in new
    ones. No term, declaration or assertion passes from one context to the
    next; only the allocator's free pages do.
    """
    with gc_paused():
        return _run_smt(model, settings or SolverSettings(), mode, progress or quiet, jobs, solving, declarations)


def _run_smt(
    model: Model,
    st: SolverSettings,
    mode: str | None,
    say: Say,
    jobs: int | None,
    solving: Solving | None,
    declarations: Declarations | None = None,
) -> SmtRun:
    start = time.process_time()
    facts = model_facts(model)
    if total_operations(facts) < POOL_MIN_OPERATIONS:
        keep_freed_memory()
    timings = {"facts": RuleTiming(encode=time.process_time() - start)}
    chosen = mode or choose_mode(facts, st)
    own = solving is None
    pool = open_solving(jobs, total_operations(facts)) if solving is None else solving
    try:
        if pool.parallel:
            say(f"smt: solving on {pool.jobs} worker processes")
        results = _Scheduler(pool, st, chosen, say, timings, declarations).run(model, facts)
        workers = pool.jobs if pool.parallel else 1
        if pool.note:
            say(f"smt: {pool.note}")
    finally:
        if own:
            pool.close()
    order = [e.rule_id for e in registry.ENCODINGS]
    verdicts = [results[rid].verdict for rid in order]
    obligations = [ob for rid in order for ob in results[rid].obligations]
    params = settings_report(st)
    params["mode"] = chosen
    return SmtRun(verdicts, obligations, params, chosen, timings, workers)


@dataclass(eq=False)
class _Scheduler:
    """Runs the rules' proofs (:data:`.common.Proof`), sending their obligations to the solving as they come.

    Each proof runs until it asks for answers; its obligations go to the
    solving (the pool's workers start on them at once) and the next rule's
    Python runs meanwhile. Proofs are then resumed in rule order as their
    answers arrive. A proof sees only its own answers and the results it
    needs, so its result does not depend on the order in which anything was
    solved. The encodings are started in :data:`.registry.START_ORDER`, in
    rounds: each round starts every encoding whose needs are done, then
    resumes the waiting proofs until all have their results (GRAPH-DETERMINISM,
    which reads GRAPH-ACYCLIC, the three C1 rules and GRAPH-R2, is the one of the second
    round). An encoding whose needs can never be met (a need outside the
    table, or a cycle of needs) is UNKNOWN, and so is one whose proof raises:
    never a pass.
    """

    solving: Solving
    settings: SolverSettings
    mode: str
    say: Say
    timings: dict[str, RuleTiming]
    declarations: Declarations | None = None
    results: dict[str, RuleResult] = field(default_factory=dict)
    waiting: list[tuple[str, Proof, list[Ticket]]] = field(default_factory=list)
    solved: int = 0
    """Obligations answered so far, said with the proofs done (:meth:`_counted`)."""
    sent: dict[tuple[str, bool], Ticket] = field(default_factory=dict)
    """Each script sent to the solving so far (with its difference-logic flag), and its ticket (:meth:`_submit`)."""
    proofs: Steps = field(init=False)

    def run(self, model: Model, facts: list[ScopeFacts]) -> dict[str, RuleResult]:
        """Every encoding of the table, each once its needs are done; results by rule ID."""
        self.proofs = Steps(self.say, "smt: proofs done", len(registry.ENCODINGS), estimate=False)
        pending = start_order(registry.ENCODINGS)
        while pending:
            ready = [e for e in pending if all(n in self.results for n in e.needs)]
            if not ready:  # a need outside the table, or a cycle of needs
                missing = {e.rule_id: ", ".join(n for n in e.needs if n not in self.results) for e in pending}
                for rid, names in missing.items():
                    self._failed(rid, f"the encoding needs results no encoding gives ({names}): a tool defect")
                break
            for e in ready:
                needed = {n: self.results[n] for n in e.needs}
                self.start(e, ProofContext(model, facts, self.settings, self.mode, needed, self.declarations))
            pending = [e for e in pending if e not in ready]
            self.finish()
        return self.results

    def start(self, encoding: Encoding, ctx: ProofContext) -> None:
        rule_id = encoding.rule_id
        self.say(f"smt: proving {rule_id} ({self.mode})")
        self.timings[rule_id] = RuleTiming()
        t0 = time.process_time()
        try:
            proof = encoding.prove(ctx)
        except Exception as exc:
            self._failed(rule_id, f"internal error in the SMT encoding: {type(exc).__name__}: {exc}")
            return
        finally:
            self.timings[rule_id].encode += time.process_time() - t0
        self._advance(rule_id, proof, None, front=False)

    def finish(self) -> None:
        """Resume the waiting proofs in order, each with its answers, until every one has its result."""
        while self.waiting:
            rule_id, proof, tickets = self.waiting.pop(0)
            self._advance(rule_id, proof, [self._answer(t) for t in tickets], front=True)

    def _advance(self, rule_id: str, proof: Proof, answers: list[Answer] | None, front: bool) -> None:
        """Run ``proof`` (first step when ``answers`` is None) until it waits for a worker or ends.

        A proof waiting for a worker is queued at the back (a new proof: the
        next rule starts meanwhile) or the front (a resumed one: it is next).
        """
        timing = self.timings[rule_id]
        while True:
            if answers is not None:
                self.solved += len(answers)
                self._counted(0)
                timing.obligations += len(answers)
                timing.parse += sum(a.parse_seconds for a in answers)
                timing.solve += sum(a.solve_seconds for a in answers)
                timing.worker_cpu += sum(a.worker_cpu for a in answers)
            t0 = time.process_time()
            try:
                asks = next(proof) if answers is None else proof.send(answers)
            except StopIteration as stop:
                self._done(rule_id, stop.value)
                return
            except RecursionError:
                self._failed(rule_id, "the encoding exceeded Python's recursion limit (a tool defect)")
                return
            except Exception as exc:
                self._failed(rule_id, f"internal error in the SMT encoding: {type(exc).__name__}: {exc}")
                return
            finally:
                timing.encode += time.process_time() - t0
            tickets = [self._submit(rule_id, a) for a in asks]
            if any(t.answer is None for t in tickets):
                self.waiting.insert(0 if front else len(self.waiting), (rule_id, proof, tickets))
                return
            answers = [t.answer for t in tickets if t.answer is not None]

    def _submit(self, rule_id: str, a: Ask) -> Ticket:
        """Send ``a`` to the solving, or, when the very same script was sent before, wait for that one's answer.

        Two rules may ask z3 about the same text (GRAPH-ACYCLIC and GRAPH-C3
        write the comparisons of their common ranks alike, :mod:`.ground`): z3's
        answer is a function of the script, the settings (one for the run)
        and the difference-logic flag, so the script is solved once and each
        rule reads the answer as its own. Each still lists, and exports, its
        own obligation.
        """
        job = Job(a.ob.script(), self.settings, a.difference_logic)
        if a.local:  # solved here, now: the rule reads z3's solver from the answer
            self.timings[rule_id].megabytes += len(job.text) / 1e6
            return Ticket(job, answer=solve(job.text, self.settings, a.difference_logic))
        key = (job.text, job.difference_logic)
        before = self.sent.get(key)
        if before is not None:
            return _Copy(job, before, answer=None if before.answer is None else _uncosted(before.answer))
        self.timings[rule_id].megabytes += len(job.text) / 1e6
        ticket = self.sent[key] = self.solving.submit(job)
        return ticket

    def _answer(self, ticket: Ticket) -> Answer:
        """The answer of ``ticket`` (of the ticket it copies, without that one's costs), waiting for it if need be."""
        if isinstance(ticket, _Copy):
            if ticket.answer is None:
                ticket.answer = _uncosted(self.solving.answer(ticket.original))
            return ticket.answer
        return self.solving.answer(ticket)

    def _counted(self, proofs: int) -> None:
        """Say ``proofs`` more proofs done, with the obligations answered so far (at most once per interval)."""
        self.proofs.advance(proofs, f"{self.solved:,} obligation(s) solved")

    def _done(self, rule_id: str, res: object) -> None:
        self._counted(1)
        if not isinstance(res, RuleResult):
            self._failed(rule_id, f"the encoding returned {type(res).__name__}, not a result (a tool defect)")
            return
        v = res.verdict
        if v.rule_id != rule_id:
            res = RuleResult(unknown(rule_id, f"the encoding answered for {v.rule_id!r} (a tool defect)", self.mode))
        self.results[rule_id] = res

    def _failed(self, rule_id: str, reason: str) -> None:
        self._counted(1)
        self.results[rule_id] = RuleResult(unknown(rule_id, reason, self.mode))


class _Copy(Ticket):
    """A script already sent by another ask: answered with the answer of the ticket ``original``."""

    def __init__(self, job: Job, original: Ticket, answer: Answer | None) -> None:
        super().__init__(job, answer=answer)
        self.original = original


def _uncosted(answer: Answer) -> Answer:
    """``answer`` as a second asker receives it: the same words, the solving's costs counted once (for the first)."""
    return replace(answer, parse_seconds=0.0, solve_seconds=0.0, worker_cpu=0.0)


def start_order(table: tuple[Encoding, ...]) -> list[Encoding]:
    """The encodings of ``table`` in :data:`.registry.START_ORDER` (those it does not list after, in table order)."""
    rank = {rid: k for k, rid in enumerate(registry.START_ORDER)}
    return sorted(table, key=lambda e: rank.get(e.rule_id, len(rank)))


SEVERITY = Severity.ERROR
