"""Where the tasks of a batch run: serially, on a process pool, or on Dask distributed.

See :mod:`sonnx.checking.batch`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from ...base.errors import UsageError
from ...base.workers import Died, Done, Raised, WorkerPool
from .tasks import MAX_ATTEMPTS, Collector, Task, TaskResult, check_task

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the scheduler named by ``--scheduler`` before the batch is refused."""


def largest_first(tasks: Sequence[Task]) -> list[Task]:
    """The tasks by decreasing model file size (ties in batch order): the order in which workers take them.

    A batch cannot end before its slowest model, so a long check should not start last while the other workers
    sit idle. File size stands in for the work: a heuristic that holds when the weights are in the file. It does
    not for onnx's light models, which compute their weights with ConstantOfShape operations (light VGG-19, the
    slowest, is the third-smallest file). Results are still reported in batch order (the collector's); an
    unreadable file sorts last and gets its error from the check itself.
    """

    def size(task: Task) -> int:
        try:
            return os.path.getsize(task.path)
        except OSError:
            return -1

    return sorted(tasks, key=lambda t: (-size(t), t.index))


def run_serial(tasks: Sequence[Task], collector: Collector) -> None:
    for task in tasks:
        collector.submitted(task)
        collector.add(check_task(task))


def run_pool(
    tasks: Sequence[Task], collector: Collector, workers: int, fn: Callable[[Task], TaskResult] = check_task
) -> None:
    """Local worker processes, largest model first (``fn``: what a worker runs, for tests).

    A worker that dies costs only the model it held: that model is submitted
    again, up to :data:`MAX_ATTEMPTS` submissions in all, and then its result
    is an ERROR naming how the worker ended. Every other model keeps its
    worker, and a dead worker is replaced (:mod:`sonnx.base.workers`).
    """
    order = largest_first(tasks)
    if not order:
        return
    with WorkerPool(fn, min(workers, len(order)), ["sonnx.checking.batch"]) as pool:
        held: dict[int, Task] = {}

        def send(task: Task) -> None:
            collector.submitted(task)
            held[pool.submit(task)] = task

        for task in order:
            send(task)
        while held:
            ticket, outcome = pool.next_outcome()
            task = held.pop(ticket)
            if isinstance(outcome, Done):
                collector.add(outcome.value)
            elif isinstance(outcome, Died) and collector.attempts[task.index] < MAX_ATTEMPTS:
                collector.say(f"{task.path}: its worker was lost ({outcome.reason}); submitting it again")
                send(task)
            elif isinstance(outcome, Died):
                collector.lost(task, outcome.reason)
            elif isinstance(outcome, Raised):
                collector.failed(task, outcome.message)
            else:
                collector.failed(task, "the pool was closed before its check ended")


def dask_available() -> bool:
    """True when Dask distributed (the ``fleet`` extra) can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def run_dask(tasks: Sequence[Task], collector: Collector, workers: int, scheduler: str | None) -> tuple[str, int]:
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

    futures = {submit(t): t for t in largest_first(tasks)}
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
