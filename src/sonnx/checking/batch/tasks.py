"""One model's check as a task a worker runs, and the collector that accepts exactly one result per model."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...base.errors import SonnxError, ToolError
from ...base.progress import Say, time_left
from ..options import CheckOptions
from ..pipeline import check_file, check_with_evidence
from ..report import ModelReport

MAX_ATTEMPTS = 3
"""Submissions of one model, in all, before a model whose worker keeps dying is an ERROR result."""


@dataclass(frozen=True)
class BatchItem:
    """One model's result in a batch: its report, the check's time, and where and how often it ran."""

    path: str
    report: ModelReport
    seconds: float
    attempts: int = 1
    worker: str = ""


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
    a :class:`~sonnx.base.errors.SonnxError` is the model's error (as with
    ``sonnx-check``), any other exception a :class:`~sonnx.base.errors.ToolError`
    naming it.
    """
    start = time.perf_counter()
    profile = task.options.profile
    try:
        if task.options.evidence is None:
            report = check_file(task.path, task.options, export_stem=task.export_stem)
        else:
            report = check_with_evidence(task.path, task.options, export_stem=task.export_stem)
    except SonnxError as exc:
        report = ModelReport(task.path, error=exc, profile=profile)
    except RecursionError:
        report = ModelReport(
            task.path, error=ToolError("recursion limit exceeded (a tool defect; please report it)"), profile=profile
        )
    except MemoryError:
        report = ModelReport(
            task.path, error=ToolError("not enough memory for this model on its worker"), profile=profile
        )
    except Exception as exc:
        detail = " ".join(str(exc).split())
        report = ModelReport(
            task.path,
            error=ToolError(f"internal error: {type(exc).__name__}: {detail} (a tool defect)"),
            profile=profile,
        )
    return TaskResult(task.index, report.detached(), time.perf_counter() - start, f"pid {os.getpid()}")


class Collector:
    """The results of a batch by model: exactly one each, or a tool error."""

    def __init__(self, tasks: Sequence[Task], say: Say) -> None:
        self.tasks = tasks
        self.say = say
        self.started = time.perf_counter()
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
        done, total = len(self.items), len(self.tasks)
        left = ""
        if done < total:  # the models left are taken to cost as much on average as those done
            left = f"; {time_left((time.perf_counter() - self.started) / done * (total - done))} left"
        self.say(f"[{done}/{total}] {item.path}: {item.report.outcome} ({item.seconds:.1f} s{extra}){left}")

    def lost(self, task: Task, why: str) -> None:
        """``task``'s worker died on every attempt: the model's result is an ERROR saying so."""
        self._error(task, f"the worker checking it was lost {self.attempts[task.index]} times (last: {why})", "lost")

    def failed(self, task: Task, why: str) -> None:
        """``task``'s worker could not run the check (it raised outside it, or its answer could not come back)."""
        self._error(task, f"internal error in the worker checking it: {why} (a tool defect)", "failed")

    def _error(self, task: Task, words: str, worker: str) -> None:
        report = ModelReport(task.path, error=ToolError(words), profile=task.options.profile)
        self.add(TaskResult(task.index, report, 0.0, worker))

    def done(self, task: Task) -> bool:
        return task.index in self.items

    def result(self) -> tuple[BatchItem, ...]:
        missing = [t.path for t in self.tasks if t.index not in self.items]
        if missing:
            raise ToolError(f"batch: no result for {', '.join(missing)} (a tool defect)")
        return tuple(self.items[t.index] for t in self.tasks)
