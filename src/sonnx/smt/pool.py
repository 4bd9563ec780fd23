"""Where obligations are solved: in this process, or in a pool of worker processes (``--jobs N``).

Obligations are independent: each is one SMT-LIB script, parsed and checked
in a z3 context of its own by the one solver factory (:func:`.solver.solve`:
fixed seeds, a resource limit counted in z3's steps, never a wall-clock
timeout). A worker process receives a :class:`Job` (the script's text, the
settings and whether to use difference logic) and calls that same factory; it
sends back z3's answer as words (``sat``, ``unsat``, ``unknown`` with the
reason), never a model. The answer to a script does not depend on the process
that computed it, so a run with N workers gives the verdicts and obligation
files of a run in one process (``tests/smt/test_pool.py`` holds them to it).

Nothing a worker meets is turned into a pass: an exception in the worker is
``unknown`` with its message; a worker process that dies (an out-of-memory
kill, a crash inside z3) costs only the obligation it held, which is solved
again alone in a fresh one-worker pool, and is replaced; an obligation that
kills that process too is ``unknown`` with the reason. Obligations whose
answer a rule must inspect further (a model, an unsat core, assumptions) are
not sent here: the rule solves them in its own process with
:func:`.solver.solve`.

The pool only starts for models of at least :data:`.sizes.POOL_MIN_OPERATIONS`
operations: below it, starting worker processes costs more than the whole
proof (measured in ``benchmarks/README.md``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base.threads import machine_cores
from .sizes import POOL_MIN_OPERATIONS
from .solver import Answer, SolverSettings, solve

if TYPE_CHECKING:  # the worker pool is imported when one starts: most runs solve in this process
    from ..base.workers import Outcome, WorkerPool


@dataclass(frozen=True)
class Job:
    """One obligation as a worker receives it."""

    text: str
    settings: SolverSettings
    difference_logic: bool = False


@dataclass(frozen=True)
class Reply:
    """A worker's answer to one :class:`Job`: z3's answer in words, and where the worker's time went."""

    result: str
    reason: str = ""
    parse_seconds: float = 0.0
    solve_seconds: float = 0.0
    cpu_seconds: float = 0.0
    """The CPU time of the process that solved it, freeing the z3 context included."""


def solve_job(job: Job) -> Reply:
    """What a worker runs: the solver factory on the job's text, the answer reduced to words."""
    start = time.process_time()
    ans = solve(job.text, job.settings, job.difference_logic)
    reply = (ans.result, ans.reason, ans.parse_seconds, ans.solve_seconds)
    del ans  # frees the z3 context before the time is taken
    return Reply(*reply, cpu_seconds=time.process_time() - start)


def answer_of(reply: Reply, remote: bool) -> Answer:
    """The :class:`~.solver.Answer` of a reply (``remote``: from a worker process, whose CPU time it carries)."""
    return Answer(
        reply.result,
        reply.reason,
        parse_seconds=reply.parse_seconds,
        solve_seconds=reply.solve_seconds,
        worker_cpu=reply.cpu_seconds if remote else 0.0,
    )


Worker = Callable[[Job], Reply]


class Ticket:
    """A submitted job: its answer, already known (in-process solving) or to come from a worker."""

    def __init__(
        self,
        job: Job,
        answer: Answer | None = None,
        pool: WorkerPool[Job, Reply] | None = None,
        number: int = -1,
    ) -> None:
        self.job = job
        self.answer = answer
        self.pool = pool
        """The worker pool the job was sent to, and its ticket there (``number``)."""
        self.number = number


def _in_place(exc: BaseException) -> str:
    """The progress note of a run whose worker processes could not start: what failed, and where jobs go."""
    return f"worker processes could not start ({type(exc).__name__}: {exc}); solving in this process"


class Solving:
    """Solves jobs in this process (``jobs`` 1) or on ``jobs`` worker processes; use as a context manager.

    ``worker`` is the function a worker process runs on each job (the tests
    pass one that kills its process); it must be importable by name.
    """

    def __init__(self, jobs: int = 1, worker: Worker = solve_job) -> None:
        self.jobs = max(1, jobs)
        self.worker = worker
        self.note = ""
        """Why the pool did not start, when it did not (said in the progress lines)."""
        self._pool: WorkerPool[Job, Reply] | None = None
        if self.jobs > 1:
            try:
                self._pool = _workers(self.worker, self.jobs)
            except (OSError, ValueError, AssertionError, RuntimeError) as exc:
                # no processes here (a daemonic process, a multiprocessing or Dask worker, may not have children):
                # every job is solved in this process, as with --jobs 1
                self.note = _in_place(exc)
                self.jobs = 1

    @property
    def parallel(self) -> bool:
        return self._pool is not None

    def __enter__(self) -> Solving:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the workers; a job without an answer yet is answered ``unknown`` (the run was interrupted)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def submit(self, job: Job) -> Ticket:
        if self._pool is None:
            return Ticket(job, answer=answer_of(self._run_here(job), remote=False))
        return Ticket(job, pool=self._pool, number=self._pool.submit(job))

    def answer(self, ticket: Ticket) -> Answer:
        """The ticket's answer (waiting for its worker); a failure of any kind is ``unknown`` with the reason."""
        if ticket.answer is None:
            assert ticket.pool is not None
            ticket.answer = answer_of(self._reply(ticket.job, ticket.pool.outcome(ticket.number)), remote=True)
            ticket.pool = None
        return ticket.answer

    def _run_here(self, job: Job) -> Reply:
        try:
            return self.worker(job)
        except Exception as exc:  # the worker function itself failed: not established, never a pass
            return Reply("unknown", f"the solver's worker failed: {type(exc).__name__}: {exc}")

    def _reply(self, job: Job, outcome: Outcome) -> Reply:
        from ..base.workers import Died, Done, Raised

        if isinstance(outcome, Done):
            reply: Reply = outcome.value
            return reply
        if isinstance(outcome, Died):  # only this job was lost: try it once more, alone
            return self._alone(job)
        if isinstance(outcome, Raised):
            return Reply("unknown", f"the solver's worker process failed: {outcome.message}")
        return Reply("unknown", "the solving was closed before this obligation had its answer")

    def _alone(self, job: Job) -> Reply:
        """Solve ``job`` in a one-worker pool of its own: only an obligation that kills that worker too is lost."""
        from ..base.workers import Died

        with _workers(self.worker, 1) as pool:
            outcome = pool.outcome(pool.submit(job))
        if isinstance(outcome, Died):
            return Reply(
                "unknown",
                "the solver's worker process died on this obligation, twice "
                f"({outcome.reason}: out of memory, or a crash in z3)",
            )
        return self._reply(job, outcome)


def _workers(worker: Worker, jobs: int) -> WorkerPool[Job, Reply]:
    from ..base.workers import WorkerPool

    return WorkerPool(worker, jobs, ["sonnx.smt.pool"])


def open_solving(jobs: int | None, operations: int, worker: Worker = solve_job, minimum: int | None = None) -> Solving:
    """The solving for a model of ``operations`` operations: ``jobs`` workers (None: every core) when it is large.

    Below ``minimum`` operations (:data:`.sizes.POOL_MIN_OPERATIONS` unless given)
    the obligations are solved in this process whatever ``jobs`` says; the
    answers are the same either way.
    """
    n = machine_cores() if jobs is None else jobs
    floor = POOL_MIN_OPERATIONS if minimum is None else minimum
    return Solving(n if operations >= floor else 1, worker)
