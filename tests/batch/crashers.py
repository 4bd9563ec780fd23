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
