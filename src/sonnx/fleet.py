"""Fleet checks: the full check of many models, spread over worker processes (``sonnx batch``).

Every model gets exactly the check ``sonnx-check`` gives it (the same
:class:`~sonnx.options.CheckOptions`, the same pipeline function); only
where it runs changes:

* ``serial``: one after the other in this process (``--jobs 1``);
* ``dask``: on Dask distributed, an embedded ``LocalCluster`` (worker
  processes of one thread each) or an existing cluster named by its scheduler
  address. Needs the ``fleet`` extra (``pip install 'sonnx[fleet]'``);
* ``pool``: a local :class:`concurrent.futures.ProcessPoolExecutor`, the
  fallback when Dask is not installed (said on stderr and in the report).

Each model is one task. A task never raises for a model: a model that cannot
be checked, or whose check fails inside the tool, is a per-model ERROR
result (exit 2). What can be lost is the worker itself (killed, out of
memory): Dask first reschedules the task on its own (its
``allowed-failures``), and a task Dask gives up on (``KilledWorker``, a lost
connection) is submitted again here, up to :data:`MAX_ATTEMPTS` in all; a
broken process pool is replaced and its unfinished models run again, each in
a process of its own. A model that loses its worker every time is an ERROR
result that says so. Results are collected by model, and a second result for
the same model, or a model without one, is a tool error: the batch reports
each model exactly once.

With ``options.evidence`` set to a directory ROOT, each model's bundle is
written by its task to ``ROOT/<path of the model relative to the current
directory>/``, byte for byte the bundle ``sonnx-check --evidence`` writes.
"""

from __future__ import annotations

import glob
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from .errors import EXIT_OK, SonnxError, ToolError, UsageError
from .evidence.bundle import check_destination
from .options import CheckOptions
from .pipeline import check_file, export_stems, record_evidence
from .report import ModelReport

Say = Callable[[str], None]
Executor = Literal["serial", "pool", "dask"]
EXECUTORS: tuple[str, ...] = ("dask", "pool")

MAX_ATTEMPTS = 3
"""Submissions of one model, in all, before a model whose worker keeps dying is an ERROR result."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the scheduler named by ``--scheduler`` before the batch is refused."""

MODEL_SUFFIX = ".onnx"
GLOB_CHARACTERS = frozenset("*?[")


def _quiet(_message: str) -> None:
    return None


def find_models(arguments: Sequence[str]) -> list[str]:
    """The models named by ``arguments``: files, directories (every ``*.onnx`` below, recursively) and globs.

    Sorted and deduplicated (two spellings of one file count once; the first
    in sorted order is kept). A named file is taken whatever its suffix and
    even when it does not exist (its check then says why it cannot be read);
    a directory without any ``.onnx`` file, or a pattern that matches
    nothing, is a :class:`~sonnx.errors.UsageError`.
    """
    if not arguments:
        raise UsageError("name at least one model, directory or glob")
    found: list[str] = []
    for arg in arguments:
        if os.path.isdir(arg):
            below = _walk(arg)
            if not below:
                raise UsageError(f"{arg}: the directory holds no {MODEL_SUFFIX} file")
            found.extend(below)
        elif GLOB_CHARACTERS & set(arg) and not os.path.exists(arg):
            matched = sorted(glob.glob(arg, recursive=True))
            models = [m for p in matched for m in (_walk(p) if os.path.isdir(p) else [p])]
            if not models:
                raise UsageError(f"{arg}: the pattern matches no model")
            found.extend(models)
        else:
            found.append(arg)
    seen: set[str] = set()
    out: list[str] = []
    for path in sorted(os.path.normpath(p) for p in found):
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def _walk(directory: str) -> list[str]:
    out: list[str] = []
    for folder, dirs, files in os.walk(directory):
        dirs.sort()
        out.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(MODEL_SUFFIX))
    return out


def bundle_directory(root: str, model: str) -> str:
    """``ROOT/<model path relative to the current directory>``; a model outside it is a UsageError."""
    rel = os.path.relpath(os.path.abspath(model))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise UsageError(
            f"--evidence: {model} is outside the current directory, so it has no place under {root}; "
            "run the batch from a directory that holds every model"
        )
    return os.path.join(root, rel)


@dataclass(frozen=True)
class BatchItem:
    """One model's result in a batch: its report, the check's time, and where and how often it ran."""

    path: str
    report: ModelReport
    seconds: float
    attempts: int = 1
    worker: str = ""


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


@dataclass(frozen=True)
class Task:
    """What a worker needs to check one model: its position in the batch, path, options and SMT file stem."""

    index: int
    path: str
    options: CheckOptions
    export_stem: str


@dataclass(frozen=True)
class TaskResult:
    """What a worker sends back: the detached report, the time taken and who took it."""

    index: int
    report: ModelReport
    seconds: float
    worker: str


def check_task(task: Task) -> TaskResult:
    """Run one model's check (and write its bundle); every failure becomes the model's ERROR report.

    This is the function each worker runs. Nothing it can meet propagates:
    a :class:`~sonnx.errors.SonnxError` is the model's error (as with
    ``sonnx-check``), any other exception a :class:`~sonnx.errors.ToolError`
    naming it.
    """
    start = time.perf_counter()
    try:
        report = check_file(task.path, task.options, export_stem=task.export_stem)
        if task.options.evidence is not None:
            record_evidence(report, task.options)
    except SonnxError as exc:
        report = ModelReport(task.path, error=exc)
    except RecursionError:
        report = ModelReport(task.path, error=ToolError("recursion limit exceeded (a tool defect; please report it)"))
    except MemoryError:
        report = ModelReport(task.path, error=ToolError("not enough memory for this model on its worker"))
    except Exception as exc:
        detail = " ".join(str(exc).split())
        report = ModelReport(
            task.path, error=ToolError(f"internal error: {type(exc).__name__}: {detail} (a tool defect)")
        )
    return TaskResult(task.index, report.detached(), time.perf_counter() - start, f"pid {os.getpid()}")


class Collector:
    """The results of a batch by model: exactly one each, or a tool error."""

    def __init__(self, tasks: Sequence[Task], say: Say) -> None:
        self.tasks = tasks
        self.say = say
        self.items: dict[int, BatchItem] = {}
        self.attempts: dict[int, int] = {t.index: 0 for t in tasks}

    def submitted(self, task: Task) -> int:
        """Count one more submission of ``task``; return how many there have been."""
        self.attempts[task.index] += 1
        return self.attempts[task.index]

    def add(self, result: TaskResult) -> None:
        if result.index in self.items:
            raise ToolError(f"batch: a second result for {self.tasks[result.index].path} (a tool defect)")
        item = BatchItem(
            self.tasks[result.index].path, result.report, result.seconds, self.attempts[result.index], result.worker
        )
        self.items[result.index] = item
        extra = f", attempt {item.attempts}" if item.attempts > 1 else ""
        self.say(
            f"[{len(self.items)}/{len(self.tasks)}] {item.path}: {item.report.outcome} ({item.seconds:.1f} s{extra})"
        )

    def lost(self, task: Task, why: str) -> None:
        """``task``'s worker died on every attempt: the model's result is an ERROR saying so."""
        error = ToolError(f"the worker checking it was lost {self.attempts[task.index]} times (last: {why})")
        self.add(TaskResult(task.index, ModelReport(task.path, error=error), 0.0, "lost"))

    def done(self, task: Task) -> bool:
        return task.index in self.items

    def result(self) -> tuple[BatchItem, ...]:
        missing = [t.path for t in self.tasks if t.index not in self.items]
        if missing:
            raise ToolError(f"batch: no result for {', '.join(missing)} (a tool defect)")
        return tuple(self.items[t.index] for t in self.tasks)


def _run_serial(tasks: Sequence[Task], collector: Collector) -> None:
    for task in tasks:
        collector.submitted(task)
        collector.add(check_task(task))


def _run_pool(
    tasks: Sequence[Task], collector: Collector, workers: int, fn: Callable[[Task], TaskResult] = check_task
) -> None:
    """A process pool; after a break, each unfinished model runs again in a pool of its own (``fn``: for tests)."""
    remaining = list(tasks)
    size = workers
    while remaining:
        lost: list[tuple[Task, str]] = []
        with ProcessPoolExecutor(max_workers=min(size, len(remaining)), mp_context=_context()) as pool:
            futures: dict[Future[TaskResult], Task] = {}
            for task in remaining if size > 1 else remaining[:1]:
                collector.submitted(task)
                futures[pool.submit(fn, task)] = task
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        collector.add(future.result())
                    except BrokenProcessPool as exc:
                        lost.append((futures[future], str(exc) or "the worker process died"))
        remaining = [t for t in remaining if not collector.done(t)]
        for task, why in lost:
            if collector.attempts[task.index] >= MAX_ATTEMPTS:
                collector.lost(task, why)
        remaining = [t for t in remaining if not collector.done(t)]
        size = 1  # isolate: after a break, one model per process, so a model that kills its worker hurts only itself


def _context() -> BaseContext:
    """How pool workers start: forked from a server process that has imported sonnx (POSIX), else spawned.

    Not a plain fork of this process, which may hold threads (a Dask client, a
    caller's) whose locks a forked child would inherit.
    """
    try:
        ctx = get_context("forkserver")
    except ValueError:
        return get_context("spawn")
    ctx.set_forkserver_preload(["sonnx.fleet"])
    return ctx


def dask_available() -> bool:
    """True when Dask distributed (the ``fleet`` extra) can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _run_dask(tasks: Sequence[Task], collector: Collector, workers: int, scheduler: str | None) -> tuple[str, int]:
    """Run the tasks on Dask distributed; return the cluster in words and its number of workers."""
    import logging

    from distributed import Client, LocalCluster, as_completed

    cluster = None
    try:
        if scheduler is None:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                worker_dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
            where = f"Dask LocalCluster, {workers} worker processes of 1 thread"
        else:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"--scheduler {scheduler}: cannot connect ({type(exc).__name__}: {exc})") from None
            workers = len(client.scheduler_info()["workers"])
            where = f"Dask cluster at {scheduler}, {workers} workers"
        with client:
            _collect_dask(tasks, collector, client, as_completed)
        return where, workers
    finally:
        if cluster is not None:
            cluster.close()


def _collect_dask(tasks: Sequence[Task], collector: Collector, client: Any, as_completed: Any) -> None:
    def submit(task: Task) -> Any:
        attempt = collector.submitted(task)
        return client.submit(check_task, task, key=f"sonnx-check-{task.index}-{attempt}", pure=False)

    futures = {submit(t): t for t in tasks}
    stream = as_completed(list(futures))
    for future in stream:
        task = futures.pop(future)
        if future.status == "finished":
            collector.add(future.result())
            continue
        why = _failure(future)
        future.release()
        if collector.attempts[task.index] < MAX_ATTEMPTS:
            collector.say(f"{task.path}: its worker was lost ({why}); submitting it again")
            again = submit(task)
            futures[again] = task
            stream.add(again)
        else:
            collector.lost(task, why)


def _failure(future: Any) -> str:
    """Why a Dask future did not finish, in words (KilledWorker, a lost connection, a cancellation)."""
    try:
        exc = future.exception(timeout=5)
    except BaseException as inner:  # a cancelled future raises here
        return f"{type(inner).__name__}: {inner}"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


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
    say = progress or _quiet
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
    tasks = _tasks(paths, opts)
    collector = Collector(tasks, say)
    if kind == "serial":
        where = "serial, in this process"
        _run_serial(tasks, collector)
    elif kind == "pool":
        where = f"local process pool, {n} worker processes"
        say(f"checking {len(tasks)} models on a {where}")
        _run_pool(tasks, collector, n)
    else:
        say(f"checking {len(tasks)} models on Dask" + (f" at {scheduler}" if scheduler else f" ({n} workers)"))
        where, n = _run_dask(tasks, collector, n, scheduler)
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


def check_destination_tree(directory: str) -> None:
    """Make the parents of a bundle directory and refuse a destination in use (before any model is checked)."""
    try:
        Path(directory).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--evidence: cannot create {Path(directory).parent}: {exc.strerror or exc}") from None
    check_destination(directory)


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
