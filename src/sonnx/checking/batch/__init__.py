"""Fleet checks: the full check of many models, spread over worker processes (``sonnx batch``).

Every model gets exactly the check ``sonnx-check`` gives it (the same
:class:`~sonnx.checking.options.CheckOptions`, the same pipeline function); only
where it runs changes:

* ``serial``: one after the other in this process (``--jobs 1``);
* ``dask``: on Dask distributed, an embedded ``LocalCluster`` (worker
  processes of one thread each) or an existing cluster named by its scheduler
  address. Needs the ``fleet`` extra (``pip install 'sonnx[fleet]'``);
* ``pool``: local worker processes (:class:`sonnx.base.workers.WorkerPool`),
  the fallback when Dask is not installed (said on stderr and in the report).

Each model is one task. A task never raises for a model: a model that cannot
be checked, or whose check fails inside the tool, is a per-model ERROR
result (exit 2). What can be lost is the worker itself (killed, out of
memory): Dask first reschedules the task on its own (its
``allowed-failures``), and a task Dask gives up on (``KilledWorker``, a lost
connection) is submitted again here, up to :data:`MAX_ATTEMPTS` in all; in
the local pool, the model a dead worker held is submitted again in the same
way, and the other models keep their workers. A model that loses its worker
every time is an ERROR result that says so. Results are collected by model,
and a second result for the same model, or a model without one, is a tool
error: the batch reports each model exactly once.

With ``options.evidence`` set to a directory ROOT, each model's bundle is
written by its task to ``ROOT/<path of the model relative to the current
directory>/``, byte for byte the bundle ``sonnx-check --evidence`` writes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...base.errors import EXIT_OK, UsageError
from ...base.progress import Say, quiet
from ..evidence.attestation import load_signing_key
from ..options import CheckOptions
from ..pipeline import export_stems
from ..report import ModelReport
from .discover import bundle_directory, check_destination_tree, find_models
from .engines import dask_available, run_dask, run_pool, run_serial
from .tasks import MAX_ATTEMPTS, BatchItem, Collector, Task, TaskResult, check_task

Executor = Literal["serial", "pool", "dask"]


EXECUTORS: tuple[str, ...] = ("dask", "pool")


@dataclass(frozen=True)
class Batch:
    """Every model's result, in sorted path order, and how the batch ran."""

    items: tuple[BatchItem, ...]
    options: CheckOptions
    executor: str
    """``serial``, ``pool`` or ``dask``."""
    workers: int
    where: str
    """The executor in words (``Dask LocalCluster, 2 worker processes``...)."""
    notes: tuple[str, ...] = ()

    @property
    def reports(self) -> tuple[ModelReport, ...]:
        return tuple(i.report for i in self.items)

    @property
    def exit_code(self) -> int:
        """The largest exit code of the models (as ``sonnx-check`` gives for several models)."""
        return max((i.report.exit_code for i in self.items), default=EXIT_OK)

    def seconds(self) -> dict[str, float]:
        return {i.path: i.seconds for i in self.items}

    def __repr__(self) -> str:
        """One line: how many models, where they ran, the exit code and how many models had each outcome."""
        tally: dict[str, int] = {}
        for r in self.reports:
            tally[r.outcome.value] = tally.get(r.outcome.value, 0) + 1
        each = ", ".join(f"{k} {n}" for k, n in tally.items())
        ran = f"models={len(self.items)} executor={self.executor} workers={self.workers}"
        return f"<Batch {ran}: exit {self.exit_code}; {each}>"

    def to_json(self) -> dict[str, Any]:
        """How the batch ran (the verdicts are in the models' reports)."""
        return {
            "executor": self.executor,
            "where": self.where,
            "workers": self.workers,
            "notes": list(self.notes),
            "models": [
                {"path": i.path, "outcome": i.report.outcome, "exit_code": i.report.exit_code,
                 "seconds": round(i.seconds, 3), "attempts": i.attempts}
                for i in self.items
            ],
        }


def run_batch(
    paths: Sequence[str],
    options: CheckOptions | None = None,
    *,
    workers: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    progress: Say | None = None,
) -> Batch:
    """Check every model of ``paths`` (already found: :func:`find_models`) and return one result each.

    ``workers`` is the number of worker processes (default: the machine's
    cores); 1 runs the models one after the other in this process.
    ``executor`` is ``dask`` (default when installed) or ``pool``;
    ``scheduler`` (``tcp://HOST:PORT``) sends the work to an existing Dask
    cluster. ``options.evidence`` is the root of the bundles (see the module
    text); every destination is checked before any model is.
    """
    opts = options or CheckOptions()
    say = progress or quiet
    if not paths:
        raise UsageError("name at least one model to check")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise UsageError("--workers must be at least 1")
    if executor is not None and executor not in EXECUTORS:
        raise UsageError(f"--executor: unknown executor {executor!r} (known: {', '.join(EXECUTORS)})")
    if scheduler is not None:
        if workers is not None:
            raise UsageError("--workers sizes the embedded cluster; the cluster at --scheduler has its own workers")
        if executor == "pool":
            raise UsageError("--scheduler sends the work to a Dask cluster; it does not apply with --executor pool")
        if opts.sign is not None:
            raise UsageError(
                "--sign: the private key is read where each bundle is written, which with --scheduler is a "
                "cluster worker; run the batch without --scheduler to sign its bundles"
            )
    if opts.sign is not None:
        load_signing_key(opts.sign)  # a key that cannot sign is refused before any model is checked
        opts = replace(opts, sign=os.path.abspath(opts.sign))  # the workers may not share this directory
    n = workers if workers is not None else (os.cpu_count() or 1)
    notes: list[str] = []
    kind: Executor
    if scheduler is None and n == 1:
        kind = "serial"
    elif executor == "pool":
        kind = "pool"
    elif dask_available():
        kind = "dask"
    elif executor == "dask" or scheduler is not None:
        raise UsageError("Dask distributed is not installed: pip install 'sonnx[fleet]'")
    else:
        kind = "pool"
        notes.append("Dask distributed is not installed (pip install 'sonnx[fleet]'); using a local process pool")
    # The models run side by side: each one's SMT obligations are solved in its own worker, not in a pool of pools.
    tasks = _tasks(paths, opts if kind == "serial" else replace(opts, jobs=1))
    collector = Collector(tasks, say)
    if kind == "serial":
        where = "serial, in this process"
        run_serial(tasks, collector)
    elif kind == "pool":
        where = f"local process pool, {n} worker processes"
        say(f"checking {len(tasks)} models on a {where}")
        run_pool(tasks, collector, n)
    else:
        say(f"checking {len(tasks)} models on Dask" + (f" at {scheduler}" if scheduler else f" ({n} workers)"))
        where, n = run_dask(tasks, collector, n, scheduler)
    say("done")
    return Batch(collector.result(), opts, kind, 1 if kind == "serial" else n, where, tuple(notes))


def _tasks(paths: Sequence[str], options: CheckOptions) -> list[Task]:
    """One task per model; with evidence, each its own bundle directory (checked and its parents made now)."""
    stems = export_stems(paths)
    tasks = []
    for k, (path, stem) in enumerate(zip(paths, stems, strict=True)):
        opts = options
        if options.evidence is not None:
            root = options.evidence
            if os.path.exists(root) and not os.path.isdir(root):
                raise UsageError(f"--evidence: {root} exists and is not a directory")
            directory = bundle_directory(root, path)
            check_destination_tree(directory)
            opts = replace(options, evidence=directory)
        tasks.append(Task(k, path, opts, stem))
    return tasks


__all__ = [
    "EXECUTORS",
    "MAX_ATTEMPTS",
    "Batch",
    "BatchItem",
    "Task",
    "TaskResult",
    "bundle_directory",
    "check_task",
    "dask_available",
    "find_models",
    "run_batch",
]
