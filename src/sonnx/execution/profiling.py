"""Where a run's time and memory go: the summary of profiled runs, and a Chrome trace of them.

A profiled run (:class:`sonnx.execution.plan.Probe`) records, for every operation that
fires in the main graph, when its kernel started and ended, the bytes of its
outputs, and the bytes of the run's live values right after it (graph inputs
and computed tensors; the weights are counted apart). This module turns one
or more such runs into:

* per operator type: how many operations, their time (the sum over those
  operations of each one's median over the runs), its share of the sum over
  all operations, the bytes they wrote;
* per operation, the same figures, and the ten most expensive;
* the run's median wall time, the median over runs of the kernels' total, and
  the difference: the part spent outside kernels (the executor's own work per
  operation: argument lists, stores, drops, and the probe's own bookkeeping);
* the largest live set: the most bytes of live values at any point of the
  schedule, next to the bytes of the weights.

Control-flow operations (If, Loop, Scan) are timed as one operation: the time
of their nested graphs is theirs.

:func:`trace_events` writes the same runs in the trace-event format that
onnxruntime's profiler writes and chrome://tracing and Perfetto open: a JSON
array of complete events (``"ph": "X"``) with ``name``, ``cat``, ``ts`` and
``dur`` in microseconds, ``pid``, ``tid`` and ``args``; one ``Session``
event per run and one ``Node`` event per firing.
"""

from __future__ import annotations

import os
import statistics
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .plan import ModelPlan, Probe

TOP = 10
"""How many operations the summary names as the most expensive."""


@dataclass(frozen=True)
class OperationCost:
    """One operation's figures: its median kernel time over the runs, and the bytes of its outputs."""

    index: int
    label: str
    operator: str
    seconds: float
    output_bytes: int


@dataclass(frozen=True)
class OperatorCost:
    """The figures of every operation of one operator type, added up."""

    operator: str
    count: int
    seconds: float
    share: float
    output_bytes: int


@dataclass(frozen=True)
class Profile:
    """The summary of one or more profiled runs of the same schedule."""

    runs: int
    run_seconds: float
    kernel_seconds: float
    operators: tuple[OperatorCost, ...]
    operations: tuple[OperationCost, ...]
    peak_live_bytes: int
    initial_bytes: int
    input_bytes: int
    outside_kernels_seconds: float
    """The median over runs of the run's time less its kernels' time."""

    @property
    def top(self) -> tuple[OperationCost, ...]:
        """The :data:`TOP` operations with the largest median time, largest first."""
        return tuple(sorted(self.operations, key=lambda c: (-c.seconds, c.index))[:TOP])

    def as_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "run_median_s": self.run_seconds,
            "kernels_s": self.kernel_seconds,
            "outside_kernels_s": self.outside_kernels_seconds,
            "peak_live_bytes": self.peak_live_bytes,
            "weights_bytes": self.initial_bytes,
            "input_bytes": self.input_bytes,
            "operators": [
                {"operator": c.operator, "count": c.count, "seconds": c.seconds, "share": c.share,
                 "output_bytes": c.output_bytes}
                for c in self.operators
            ],
            "top": [_operation_json(c) for c in self.top],
            "operations": [_operation_json(c) for c in self.operations],
        }

    def text_lines(self) -> list[str]:
        lines = [
            f"profile: {self.runs} run(s), median {self.run_seconds * 1e3:.3f} ms per run: kernels "
            f"{self.kernel_seconds * 1e3:.3f} ms, outside kernels {self.outside_kernels_seconds * 1e3:.3f} ms",
            f"largest live set {_size(self.peak_live_bytes)} (inputs {_size(self.input_bytes)}), "
            f"weights {_size(self.initial_bytes)}",
            f"  {'operator':<24} {'count':>6} {'ms':>10} {'share':>7} {'written':>10}",
        ]
        for c in self.operators:
            lines.append(f"  {c.operator:<24} {c.count:>6} {c.seconds * 1e3:>10.3f} {c.share:>6.1%} "
                         f"{_size(c.output_bytes):>10}")
        lines.append(f"top {min(TOP, len(self.operations))} operations:")
        for t in self.top:
            lines.append(f"  {t.seconds * 1e3:>10.3f} ms  {_size(t.output_bytes):>10}  #{t.index} {t.label}")
        return lines


def _operation_json(c: OperationCost) -> dict[str, Any]:
    return {"index": c.index, "label": c.label, "operator": c.operator, "seconds": c.seconds,
            "output_bytes": c.output_bytes}


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def summarise(plan: ModelPlan, probes: Sequence[Probe]) -> Profile:
    """The summary of ``probes``: runs of ``plan`` in the same schedule (the same operations fire)."""
    if not probes:
        raise ValueError("no profiled run to summarise")
    main = plan.main
    per_op: dict[int, list[float]] = {}
    written: dict[int, int] = {}
    for probe in probes:
        for f in probe.firings:
            per_op.setdefault(f.index, []).append(f.end - f.start)
            written[f.index] = f.output_bytes
    operations = tuple(
        OperationCost(i, main.labels[i], main.operators[i], statistics.median(ts), written[i])
        for i, ts in sorted(per_op.items())
    )
    # per run, then the median: a sum of per-operation medians would understate a noisy run
    kernels = statistics.median(sum(f.end - f.start for f in p.firings) for p in probes)
    per_type_total = sum(c.seconds for c in operations)
    by_type: dict[str, list[OperationCost]] = {}
    for c in operations:
        by_type.setdefault(c.operator, []).append(c)
    operators = tuple(
        sorted(
            (
                OperatorCost(op, len(cs), sum(c.seconds for c in cs),
                             sum(c.seconds for c in cs) / per_type_total if per_type_total else 0.0,
                             sum(c.output_bytes for c in cs))
                for op, cs in by_type.items()
            ),
            key=lambda c: (-c.seconds, c.operator),
        )
    )
    return Profile(
        runs=len(probes),
        run_seconds=statistics.median(p.end - p.start for p in probes),
        kernel_seconds=kernels,
        operators=operators,
        operations=operations,
        peak_live_bytes=max(p.peak_live_bytes for p in probes),
        initial_bytes=probes[0].initial_bytes,
        input_bytes=probes[0].input_bytes,
        outside_kernels_seconds=statistics.median(
            (p.end - p.start) - sum(f.end - f.start for f in p.firings) for p in probes
        ),
    )


def trace_events(plan: ModelPlan, probes: Sequence[Probe]) -> list[dict[str, Any]]:
    """The runs as Chrome trace events (microseconds from the first run's start), in time order."""
    if not probes:
        return []
    main = plan.main
    origin = min(p.start for p in probes)
    pid, tid = os.getpid(), threading.get_ident() & 0x7FFFFFFF

    def us(t: float) -> float:
        return round((t - origin) * 1e6, 3)

    events: list[dict[str, Any]] = []
    for k, probe in enumerate(probes):
        events.append({"name": "model_run", "cat": "Session", "ph": "X", "ts": us(probe.start),
                       "dur": round((probe.end - probe.start) * 1e6, 3), "pid": pid, "tid": tid,
                       "args": {"run": k, "operations": len(probe.firings)}})
        for f in probe.firings:
            events.append({
                "name": main.labels[f.index], "cat": "Node", "ph": "X", "ts": us(f.start),
                "dur": round((f.end - f.start) * 1e6, 3), "pid": pid, "tid": tid,
                "args": {"op_name": main.operators[f.index], "node_index": f.index, "run": k,
                         "output_bytes": f.output_bytes, "live_bytes": f.live_bytes},
            })
    return events
