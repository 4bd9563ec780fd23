"""Worker functions for the solver-pool tests: they kill their own process or raise, on chosen obligations.

They live in a module of their own so that a worker process can import them by
name. Each recognises its victims by a line of the obligation's text (the rank
certificate's comment), so every other obligation is solved as usual.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import NoReturn

from sonnx.smt.pool import Job, Reply, solve_job

VICTIM = "; certificate: untrusted numbers of operations and tensors"
"""The first comment line of every comparison obligation of GRAPH-ACYCLIC's rank certificate, which GRAPH-C3's
certificate of times writes alike (on the test DAGs both are one script, solved once)."""


def _die() -> NoReturn:
    """End this worker process at once, as an out-of-memory kill or a crash inside z3 would.

    Never the test process itself: if a pool ever solved a victim in place, the test fails with this reason
    instead of the whole run ending with exit status 9.
    """
    if multiprocessing.parent_process() is None:
        raise RuntimeError("a killing worker function ran in the test process (the pool solved in place)")
    os._exit(9)


def dies_on_ranks(job: Job) -> Reply:
    """Kill the worker process on a rank certificate."""
    if VICTIM in job.text:
        _die()
    return solve_job(job)


def raises_on_ranks(job: Job) -> Reply:
    """Raise inside the worker on a rank certificate."""
    if VICTIM in job.text:
        raise RuntimeError("planted failure in the worker")
    return solve_job(job)


def claims_sat(job: Job) -> Reply:
    """A wrong worker that answers ``sat`` to every obligation without solving it (a dropped obligation)."""
    return Reply("sat")


class DiesThenRaises:
    """Kill the worker on the first rank certificate it meets (writing ``marker``), then raise on every later one.

    The first death breaks the pool; the lost job is solved again in a pool of its own, where it now
    raises: the failure reported is that of the second try. A picklable instance, so that the marker's
    path reaches the worker processes with the function.
    """

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, job: Job) -> Reply:
        if VICTIM not in job.text:
            return solve_job(job)
        if os.path.exists(self.marker):
            raise RuntimeError("planted failure on the second try")
        with open(self.marker, "w", encoding="utf-8"):
            pass
        _die()


class DiesWhenReleased:
    """Kill the worker on a rank certificate, but only once the file ``gate`` exists (at most a minute later).

    A test that needs several victims sent to the same pool before it breaks creates ``gate`` after the last
    submission: without the wait, the first victim may kill its worker before the next is submitted, and the
    pool then rightly sends that one to a fresh pool. Picklable, so that the path reaches the workers.
    """

    def __init__(self, gate: str) -> None:
        self.gate = gate

    def __call__(self, job: Job) -> Reply:
        if VICTIM not in job.text:
            return solve_job(job)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.gate) and time.monotonic() < deadline:
            time.sleep(0.01)
        _die()


def slow(job: Job) -> Reply:
    """Take half a second per job (a queue of them outlasts an immediate close)."""
    time.sleep(0.5)
    return solve_job(job)
