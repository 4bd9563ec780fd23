"""The compiled plan: the executor's implementation of the execution semantics, prepared once per model.

:func:`sonnx.model.semantics.run` defines a run. Done literally, it works out
again on every run what does not change from one run to the next: the kernel
and schema of each operation, its attributes with their defaults, the tensors
each operation requires, which operations wait for which tensor, how many
operations read each tensor. A :class:`GraphPlan` works these out once:

* for every operation, its kernel bound to its decoded attributes
  (:class:`sonnx.ops.base.BoundKernel`), after the same form check the
  interpretation makes (an undeclared attribute, a required input left out);
* the required inputs, the operations waiting for each name, the initial
  count of missing inputs and the initially executable operations;
* for each name, the number of operations that require it, so that a value is
  dropped after its last reader (the ``keep`` mode of ``run``);
* the firing sequence under :class:`~sonnx.model.semantics.FileOrder`, and
  after each firing the names ``run`` drops then. Which operations fire, in
  which order, and which values are dropped depend only on names (every
  operation that fires gives a value to every name of its output mapping),
  never on the values, so a file-order run is a loop over a fixed list.

Any other scheduler runs the same algorithm as ``run`` over the prepared
tables. Nested graphs (``If``, ``Loop``, ``Scan`` bodies) run through
``run`` itself, with the plan's interpretation, whose kernels and attributes
are also resolved once per operation.

That a plan is an implementation of ``run`` is tested, not assumed:
``tests/model/test_plan_equivalence.py`` runs both on every example model,
every onnx backend node case and every stored real model and demands the same
firing sequence and bit-identical outputs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..base.allocator import keep_freed_memory
from ..base.errors import BudgetExceeded
from ..model.graph import Graph, Model, Operation
from ..model.semantics import FileOrder, GraphScope, Pending, Scheduler, settle
from ..ops.base import KernelRegistry
from ..ops.registry import REGISTRY
from .interpretation import NumpyInterpretation, check_supported
from .reuse import InPlace, in_place_firings


class _Deferred:
    """An operation whose binding failed when the plan was made: firing it raises what firing raises.

    (The semantics raises such errors when the operation fires, and only if it
    fires: an operation that never becomes executable never raises.)
    """

    __slots__ = ("_interpretation", "_operation")

    def __init__(self, interpretation: NumpyInterpretation, operation: Operation) -> None:
        self._interpretation = interpretation
        self._operation = operation

    def __call__(self, inputs: Sequence[Any | None], scope: Any = None) -> tuple[Any, ...]:
        return tuple(self._interpretation.apply(self._operation, inputs, scope))


def value_nbytes(value: Any) -> int:
    """Bytes of a value's elements: an array's ``nbytes``, the sum over a sequence's or map's values.

    Logical bytes: a view counts the elements it shows, although it shares
    them with the array it views.
    """
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, list):
        return sum(value_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(value_nbytes(v) for v in value.values())
    return 0


class Firing:
    """What a profiled run records of one firing (times from ``time.perf_counter``, in seconds)."""

    __slots__ = ("end", "index", "live_bytes", "output_bytes", "start")

    def __init__(self, index: int, start: float, end: float, output_bytes: int, live_bytes: int) -> None:
        self.index = index
        self.start = start
        self.end = end
        self.output_bytes = output_bytes
        self.live_bytes = live_bytes
        """Bytes of every live value other than the initial values, right after this firing assigned its
        outputs and before anything was dropped."""


class Probe:
    """The per-firing record of one profiled run: times, output bytes and live bytes.

    ``live_bytes`` counts the values of the run that are not initial values
    (graph inputs and computed tensors), from when they get a value until they
    are dropped; ``peak_live_bytes`` is its largest value over the run, i.e.
    the largest live set of this schedule. ``initial_bytes`` are the initial
    values (weights), counted apart.
    """

    def __init__(self) -> None:
        self.firings: list[Firing] = []
        self.start = 0.0
        self.end = 0.0
        self.peak_live_bytes = 0
        self.initial_bytes = 0
        self.input_bytes = 0


class Deadline:
    """A wall-clock budget for one run: :meth:`check` raises :class:`~sonnx.base.errors.BudgetExceeded` when spent.

    The run checks it before every firing of the main graph and, through
    :meth:`watch`, before every firing of a nested graph and every start of one
    (each Loop iteration starts its body afresh), so a run always stops soon
    after its budget, however many iterations a Loop was asked for.
    """

    __slots__ = ("at", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.at:
            raise BudgetExceeded(f"budget of {self.seconds:g} s exceeded; the run was stopped")

    def watch(self, make: Callable[[], Scheduler]) -> Callable[[], Scheduler]:
        """A scheduler factory like ``make`` whose schedulers check this deadline at each pop."""

        def watched() -> Scheduler:
            self.check()
            return _Watched(make(), self)

        return watched


class _Watched:
    """A scheduler that checks a deadline before it hands out the next operation."""

    __slots__ = ("_deadline", "_inner")

    def __init__(self, inner: Scheduler, deadline: Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def push(self, index: int) -> None:
        self._inner.push(index)

    def pop(self) -> int:
        self._deadline.check()
        return self._inner.pop()

    def __len__(self) -> int:
        return len(self._inner)


class GraphPlan:
    """One graph prepared for many runs (see the module docstring).

    ``seeded`` are the names that have a value before anything fires; ``keep``
    the names never dropped (None: nothing is dropped, as ``run`` without
    ``keep``).
    """

    def __init__(
        self,
        graph: Graph,
        interpretation: NumpyInterpretation,
        seeded: Collection[str],
        keep: frozenset[str] | None,
    ) -> None:
        self.graph = graph
        self.interpretation = interpretation
        self.keep = keep
        self.seeded = frozenset(seeded)
        ops = graph.operations
        self.calls: list[Callable[..., tuple[Any, ...]]] = []
        self.needs_scope: list[bool] = []
        for op in ops:
            try:
                kernel = interpretation.bind(op)
                bound: Callable[..., tuple[Any, ...]] = kernel
                scoped = kernel.needs_scope
            except Exception:
                bound, scoped = _Deferred(interpretation, op), True
            self.calls.append(bound)
            self.needs_scope.append(bool(scoped))
        self.inputs: list[tuple[str, ...]] = [op.input_mapping for op in ops]
        self.outputs: list[tuple[str, ...]] = [op.output_mapping for op in ops]
        self.required: list[tuple[str, ...]] = [op.required_inputs for op in ops]
        # the outputs in output order, once each (the order in which waiting operations are released)
        self.produced: list[tuple[str, ...]] = [tuple(n for n in dict.fromkeys(op.output_mapping) if n) for op in ops]
        self.labels = [op.label for op in ops]
        self.operators = [op.operator for op in ops]
        waiting: dict[str, list[int]] = {}
        self.missing: list[int] = [0] * len(ops)
        readers: dict[str, int] = {}
        ready: list[int] = []
        for i, required in enumerate(self.required):
            for n in required:
                if n not in self.seeded:
                    self.missing[i] += 1
                    waiting.setdefault(n, []).append(i)
                readers[n] = readers.get(n, 0) + 1
            if self.missing[i] == 0:
                ready.append(i)
        self.waiting: dict[str, tuple[int, ...]] = {n: tuple(js) for n, js in waiting.items()}
        self.readers = readers
        self.ready = tuple(ready)
        # operations proved to be the only users of an array nothing else shares write over it (module reuse)
        self.in_place: set[int] = set()
        for i, fn in in_place_firings(ops, self.seeded, keep, readers).items():
            if not isinstance(self.calls[i], _Deferred):
                self.calls[i] = InPlace(self.calls[i], fn)
                self.in_place.add(i)
        self.file_sequence, self.file_drops = self.simulate(FileOrder())

    def simulate(self, scheduler: Scheduler) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...]]:
        """The firing sequence a run under ``scheduler`` takes, and the names dropped after each firing.

        Names only: no kernel runs. The steps are those of ``run`` (same
        pushes, in the same order, so a seeded random scheduler draws the same).
        """
        present: dict[str, None] = dict.fromkeys(self.seeded)
        readers = dict(self.readers)
        fired: set[int] = set()
        pending = Pending(dict(self.waiting), list(self.missing), fired, scheduler)
        sequence: list[int] = []
        drops: list[tuple[str, ...]] = []
        for i in self.ready:
            scheduler.push(i)
        while len(scheduler):
            i = scheduler.pop()
            if i in fired:
                continue
            before = [n for n in self.produced[i] if n not in present]
            present.update(dict.fromkeys(before))
            fired.add(i)
            sequence.append(i)
            held = [n for n in dict.fromkeys((*self.required[i], *before)) if n in present]
            settle(before, self.required[i], pending, readers, self.keep, present)
            drops.append(tuple(n for n in held if n not in present))
        return tuple(sequence), tuple(drops)

    def _scope(self, values: dict[str, Any], nested: Callable[[], Scheduler]) -> GraphScope[Any]:
        return GraphScope(values, self.interpretation, nested)

    def run(
        self,
        values: dict[str, Any],
        scheduler: Scheduler | None = None,
        nested: Callable[[], Scheduler] = FileOrder,
        probe: Probe | None = None,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        """Fire the graph's operations on ``values`` (changed in place and returned), as ``run`` would.

        ``values`` must hold a value for exactly the names of ``seeded`` (what
        the plan was made for). ``scheduler`` None is file order. ``deadline``
        stops the run (:class:`Deadline`) when its budget is spent. ``probe``
        records each firing (:class:`Probe`): the step that fires an operation
        is then a recording one, chosen once before the loop, so a run without
        a probe pays nothing for it and both take the same firings and drops.
        """
        if deadline is not None:
            nested = deadline.watch(nested)
        # the schedule depends on names alone, so it is fixed first and then run as file order is
        sequence, drops = (self.file_sequence, self.file_drops) if scheduler is None else self.simulate(scheduler)
        recorder = None if probe is None else _Recorder(self, probe, values)
        step = self._step if recorder is None else recorder.step
        for i, drop in zip(sequence, drops, strict=True):
            if deadline is not None:
                deadline.check()
            step(i, drop, values, nested)
        if recorder is not None:
            recorder.finish()
        return values

    def _call(self, i: int, values: dict[str, Any], nested: Callable[[], Scheduler]) -> Sequence[Any]:
        """The values operation ``i``'s interpretation gives, one per output position (checked)."""
        args = [values[n] if n else None for n in self.inputs[i]]
        results = self.calls[i](args, self._scope(values, nested) if self.needs_scope[i] else None)
        if len(results) != len(self.outputs[i]):
            raise ValueError(f"{self.labels[i]}: the interpretation gave {len(results)} values for "
                             f"{len(self.outputs[i])} outputs")
        return results

    def _step(self, i: int, drop: tuple[str, ...], values: dict[str, Any], nested: Callable[[], Scheduler]) -> None:
        """Fire operation ``i`` (its outputs' values written into ``values``, a position left out
        skipped), then drop the names ``drop`` whose last reader it was."""
        for name, value in zip(self.outputs[i], self._call(i, values, nested), strict=True):
            if name:
                values[name] = value
        for n in drop:
            del values[n]


class _Recorder:
    """The firing step of a probed run: :meth:`GraphPlan._step` that also fills a :class:`Probe`.

    It fires and drops exactly as the plain step does, and keeps the byte
    count of the live values that are not initial values (the graph inputs
    count, the weights are counted apart) from when each gets a value until it
    is dropped.
    """

    __slots__ = ("call", "counted", "live", "outputs", "peak", "probe", "record", "sizes")

    def __init__(self, plan: GraphPlan, probe: Probe, values: Mapping[str, Any]) -> None:
        self.call = plan._call
        self.outputs = plan.outputs
        self.probe = probe
        self.record = probe.firings.append
        initial = set(plan.graph.initialized)
        self.sizes = {n: value_nbytes(v) for n, v in values.items()}
        self.counted = {n for n in self.sizes if n not in initial or n in plan.graph.inputs}
        probe.initial_bytes = sum(s for n, s in self.sizes.items() if n not in self.counted)
        self.live = probe.input_bytes = sum(self.sizes[n] for n in self.counted)
        self.peak = self.live
        probe.start = time.perf_counter()

    def step(self, i: int, drop: tuple[str, ...], values: dict[str, Any], nested: Callable[[], Scheduler]) -> None:
        """Fire operation ``i`` and drop ``drop`` as :meth:`GraphPlan._step` does, timing the kernel and
        recording the firing's output bytes and the live bytes after it."""
        sizes, counted = self.sizes, self.counted
        clock = time.perf_counter
        t0 = clock()
        results = self.call(i, values, nested)
        t1 = clock()
        out_bytes = 0
        live = self.live
        for name, value in zip(self.outputs[i], results, strict=True):
            if name:
                size = value_nbytes(value)
                out_bytes += size
                if name in counted:
                    live -= sizes[name]
                values[name] = value
                sizes[name] = size
                counted.add(name)
                live += size
        if live > self.peak:
            self.peak = live
        self.record(Firing(i, t0, t1, out_bytes, live))
        for n in drop:
            del values[n]
            if n in counted:
                live -= sizes[n]
                counted.discard(n)
        self.live = live

    def finish(self) -> None:
        """Close the record: the run's end time and its largest live set."""
        self.probe.end = time.perf_counter()
        self.probe.peak_live_bytes = self.peak


class ModelPlan:
    """The plan of a model's main graph for :func:`sonnx.execution.executor.execute` (outputs kept, the rest dropped).

    It holds the model's graph but not the model itself, so that a cache keyed
    weakly by the model lets both go together. Making one keeps the process's
    freed memory for its next arrays (:func:`sonnx.base.allocator.keep_freed_memory`).
    """

    def __init__(self, model: Model, registry: KernelRegistry = REGISTRY) -> None:
        check_supported(model, registry)
        keep_freed_memory()
        self.registry = registry
        self.interpretation = NumpyInterpretation(model, registry)
        g = model.graph
        self.initial: dict[str, Any] = {n: self.interpretation.initial_value(g.tensors[n]) for n in g.initialized}
        self.main = GraphPlan(g, self.interpretation, set(g.inputs) | set(self.initial), frozenset(g.outputs))

    def run(
        self,
        inputs: Mapping[str, Any],
        scheduler: Scheduler | None = None,
        nested: Callable[[], Scheduler] = FileOrder,
        probe: Probe | None = None,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        """The final values of a run on ``inputs`` (every graph input without an initial value given)."""
        values = dict(self.initial)
        values.update(inputs)
        return self.main.run(values, scheduler, nested, probe, deadline)
