"""Task functions for the process-pool tests: they kill their own worker process, as an out-of-memory kill would.

They live in a module of their own so that a worker process can import them
by name. A marker file beside each model counts the attempts across
processes.
"""

from __future__ import annotations

import os
from pathlib import Path

from sonnx.checking.batch import Task, TaskResult, check_task


def _attempt(task: Task) -> int:
    marker = Path(task.path).with_name(Path(task.path).name + ".attempts")
    count = int(marker.read_text()) + 1 if marker.exists() else 1
    marker.write_text(str(count))
    return count


def dies_once(task: Task) -> TaskResult:
    """Kill the worker on the first attempt at a model whose name starts with ``crash``; check it otherwise."""
    if Path(task.path).name.startswith("crash") and _attempt(task) == 1:
        os._exit(9)
    return check_task(task)


def always_dies(task: Task) -> TaskResult:
    """Kill the worker on every attempt at a model whose name starts with ``crash``."""
    if Path(task.path).name.startswith("crash"):
        _attempt(task)
        os._exit(9)
    return check_task(task)


def square_or_die(x: int) -> int:
    """Square ``x``; end the worker process for -1, raise for -2, return an unpicklable value for -3."""
    if x == -1:
        os._exit(9)
    if x == -2:
        raise ValueError("planted: no square for -2")
    if x == -3:
        return lambda: 0  # type: ignore[return-value]
    return x * x


class Nap:
    """Write a file named after this worker's pid into ``folder`` (it has begun), then sleep ``seconds``.

    Picklable, so that the folder reaches the workers; a test waits for the files to know the workers are busy.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def __call__(self, seconds: float) -> float:
        import time

        Path(self.folder, str(os.getpid())).touch()
        time.sleep(seconds)
        return seconds
