"""The order-independence check: several valid schedules, outputs compared bit for bit.

The spec says results do not depend on the order in which executable
operations fire (spec/graph.rst, 3.5; the general theorem is in ``proofs/``).
This is the concrete half on one model: run the NumPy executor under N
distinct seeded random schedules and compare every output's bytes. The
verdict ``EXEC-ORDERS`` claims exactly that: these schedules, on these inputs,
gave identical bytes. It names the schedules (seed and the firing sequence's
SHA-256) so that anyone can replay them.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from .errors import SonnxError
from .executor import execute, random_inputs
from .model.graph import Model
from .model.semantics import FileOrder, Scheduler, SeededRandomOrder
from .ops.values import same_value
from .verdict import Severity, Verdict, Witness

ID = "EXEC-ORDERS"
TITLE = "Execution order does not change the results"
MAX_ATTEMPTS_PER_ORDER = 20


class RecordingScheduler:
    """A scheduler that remembers the order in which it let operations fire."""

    def __init__(self, inner: Scheduler) -> None:
        self.inner = inner
        self.fired: list[int] = []
        self.widest = 0
        """The most operations that were executable at once (1 throughout: a single valid order)."""

    def push(self, index: int) -> None:
        self.inner.push(index)

    def pop(self) -> int:
        self.widest = max(self.widest, len(self.inner))
        i = self.inner.pop()
        self.fired.append(i)
        return i

    def __len__(self) -> int:
        return len(self.inner)


def _digest(sequence: list[int]) -> str:
    return hashlib.sha256(",".join(map(str, sequence)).encode()).hexdigest()


def check_orders(model: Model, count: int, seed: int = 0, inputs: Mapping[str, Any] | None = None) -> Verdict:
    """Run ``count`` distinct seeded random schedules (after file order) and compare all outputs bit for bit.

    PROVED means: every schedule listed in ``details`` gave the same bytes for
    every output on these inputs (or the model has one valid order only).
    """
    try:
        feeds = dict(inputs) if inputs is not None else random_inputs(model, seed)
        base_sched = RecordingScheduler(FileOrder())
        reference = execute(model, feeds, base_sched)
        schedules: list[dict[str, Any]] = [{"schedule": "file-order", "sha256": _digest(base_sched.fired)}]
        seen = {tuple(base_sched.fired)}
        k = 0
        attempts = 0
        while len(schedules) < count + 1 and attempts < count * MAX_ATTEMPTS_PER_ORDER:
            sched_seed = seed * 1_000_003 + k
            k += 1
            attempts += 1
            rec = RecordingScheduler(SeededRandomOrder(sched_seed))
            got = execute(model, feeds, rec)
            order = tuple(rec.fired)
            if order in seen:
                continue
            seen.add(order)
            entry = {"schedule": f"random:{sched_seed}", "sha256": _digest(rec.fired)}
            schedules.append(entry)
            for name, value in reference.items():
                if not same_value(value, got[name]):
                    return Verdict.violated(
                        ID,
                        Witness(
                            f"output {name!r} differs between file order and {entry['schedule']}",
                            {"output": name, "schedules": schedules, "input_seed": seed},
                        ),
                        Severity.ERROR,
                        engine="executor",
                    )
    except SonnxError as exc:
        return Verdict.unknown(ID, f"the model could not be executed: {exc.one_line()}", engine="executor")
    distinct = len(schedules) - 1
    details: dict[str, Any] = {"input_seed": seed, "requested": count, "schedules": schedules}
    if base_sched.widest <= 1:
        details["note"] = "at most one operation was ever executable: the model has a single valid order"
    elif distinct < count:
        details["note"] = f"only {distinct} distinct random schedules found in {attempts} draws"
        if distinct == 0:
            return Verdict.unknown(ID, details["note"] + "; nothing was compared", engine="executor")
    return Verdict(ID, Verdict.proved(ID).status, Severity.ERROR, engine="executor", details=details)
