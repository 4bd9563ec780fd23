"""Execution semantics of a SONNX graph, as pure functions over any value domain.

This is the dynamic semantics of ``spec/graph.rst`` (SONNX V2, "Execution
Semantics"):

* initially only the graph inputs (and the tensors that hold an initial value,
  and the outer tensors a nested graph captures) have values;
* an operation is *executable* when every tensor it requires has a value and
  it has not fired yet;
* *firing* an operation computes its outputs from its inputs and assigns them
  to the tensors of its output mapping;
* a *run* fires executable operations, in an order chosen by a scheduler,
  until none is left.

[Non-normative: the seeds say "executable if all inputs have values" without
"not fired yet"; read literally, a fired operation stays executable forever and
no run ends. The adopted reading fires each operation at most once; see
``spec/graph.rst``, ambiguity A2.]

The value domain is a parameter: an :class:`Interpretation` maps an operation
and its argument values to its result values. :mod:`sonnx.model.symbolic`
gives symbolic terms; the NumPy executor gives arrays.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from .graph import Graph, Operation

V = TypeVar("V")


@dataclass(frozen=True)
class State(Generic[V]):
    """An execution state: the tensors that have values, and the operations already fired."""

    values: Mapping[str, V]
    fired: frozenset[int]


class Scope(Protocol[V]):
    """What an interpretation may ask of the graph it runs in (for control flow)."""

    def run_nested(self, graph: Graph, inputs: Sequence[V]) -> tuple[V, ...]:
        """Run a nested graph with these values for its inputs; outer tensors come from this scope."""
        ...


class Interpretation(Protocol[V]):
    """A value domain: how an operation maps argument values to result values."""

    def apply(self, operation: Operation, args: Sequence[V | None], scope: Scope[V]) -> Sequence[V]:
        """Values for the operation's outputs, one per entry of its output mapping.

        ``args`` has one entry per input-mapping entry, None where the entry is
        the empty string (an omitted optional input). The result has exactly
        one entry per output-mapping entry; those of omitted outputs are ignored.
        """
        ...


class Scheduler(Protocol):
    """A pool of executable operations that decides which one fires next."""

    def push(self, index: int) -> None:
        """Add an operation (by its index in ``graph.operations``) that became executable."""
        ...

    def pop(self) -> int:
        """Remove and return the operation to fire next."""
        ...

    def __len__(self) -> int: ...


class FileOrder:
    """Fire the executable operation that comes first in the file."""

    def __init__(self) -> None:
        self._heap: list[int] = []

    def push(self, index: int) -> None:
        heapq.heappush(self._heap, index)

    def pop(self) -> int:
        return heapq.heappop(self._heap)

    def __len__(self) -> int:
        return len(self._heap)


class SeededRandomOrder:
    """Fire an executable operation drawn at random, reproducibly from ``seed``."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._pool: list[int] = []

    def push(self, index: int) -> None:
        self._pool.append(index)

    def pop(self) -> int:
        k = self._rng.randrange(len(self._pool))
        self._pool[k], self._pool[-1] = self._pool[-1], self._pool[k]
        return self._pool.pop()

    def __len__(self) -> int:
        return len(self._pool)


class LastReadyOrder:
    """Fire the operation that became executable last (a depth-first order)."""

    def __init__(self) -> None:
        self._stack: list[int] = []

    def push(self, index: int) -> None:
        self._stack.append(index)

    def pop(self) -> int:
        return self._stack.pop()

    def __len__(self) -> int:
        return len(self._stack)


def initial_state(
    graph: Graph,
    inputs: Mapping[str, V],
    initial_values: Mapping[str, V] | None = None,
    outer: Mapping[str, V] | None = None,
) -> State[V]:
    """The state before any operation fires.

    Graph inputs take ``inputs``; tensors with an initial value take
    ``initial_values`` (a graph input given in ``inputs`` overrides the
    initializer of the same name, as in ONNX); captured outer tensors take
    ``outer``. Nothing else has a value.
    """
    values: dict[str, V] = {}
    if outer:
        values.update((n, outer[n]) for n in graph.captures if n in outer)
    if initial_values:
        values.update(initial_values)
    for name in graph.inputs:
        if name in inputs:
            values[name] = inputs[name]
    return State(values, frozenset())


def is_executable(graph: Graph, state: State[V], index: int) -> bool:
    """True when operation ``index`` has not fired and all tensors it requires have values."""
    if index in state.fired:
        return False
    return all(n in state.values for n in graph.operations[index].required_inputs)


def executable(graph: Graph, state: State[V]) -> tuple[int, ...]:
    """The indices of every executable operation in ``state``, in file order."""
    return tuple(i for i in range(len(graph.operations)) if is_executable(graph, state, i))


class GraphScope(Generic[V]):
    """The scope a running graph offers to control-flow operations.

    ``values`` is the running graph's own (live) mapping: a nested graph run
    from it sees the outer tensors as they are when its operation fires.
    """

    def __init__(
        self, values: Mapping[str, V], interpretation: Interpretation[V], make_scheduler: Callable[[], Scheduler]
    ) -> None:
        self._values = values
        self._interpretation = interpretation
        self._make_scheduler = make_scheduler

    def run_nested(self, graph: Graph, inputs: Sequence[V]) -> tuple[V, ...]:
        bound = dict(zip(graph.inputs, inputs, strict=True))
        initial = _initial_values(graph, self._interpretation)
        state = initial_state(graph, bound, initial, self._values)
        final = run(graph, state, self._interpretation, self._make_scheduler(), self._make_scheduler)
        return outputs_of(graph, final)


def _initial_values(graph: Graph, interpretation: Interpretation[V]) -> dict[str, V]:
    init = getattr(interpretation, "initial_value", None)
    if init is None:
        return {}
    return {n: init(graph.tensors[n]) for n in graph.initialized}


def fire(graph: Graph, state: State[V], index: int, interpretation: Interpretation[V]) -> State[V]:
    """The state after operation ``index`` fires in ``state``.

    Raises ValueError when the operation is not executable there.
    """
    if not is_executable(graph, state, index):
        raise ValueError(f"operation {index} is not executable in this state")
    values = dict(state.values)
    _fire_into(graph.operations[index], values, interpretation, FileOrder)
    return State(values, state.fired | {index})


def _fire_into(
    op: Operation, values: dict[str, V], interpretation: Interpretation[V], make_scheduler: Callable[[], Scheduler]
) -> None:
    args = [values[n] if n else None for n in op.input_mapping]
    scope = GraphScope(values, interpretation, make_scheduler)
    results = interpretation.apply(op, args, scope)
    if len(results) != len(op.output_mapping):
        got, want = len(results), len(op.output_mapping)
        raise ValueError(f"{op.label}: the interpretation gave {got} values for {want} outputs")
    for name, value in zip(op.output_mapping, results, strict=True):
        if name:
            values[name] = value


def run(
    graph: Graph,
    state: State[V],
    interpretation: Interpretation[V],
    scheduler: Scheduler,
    nested_scheduler: Callable[[], Scheduler] = FileOrder,
    keep: frozenset[str] | None = None,
) -> State[V]:
    """Fire executable operations, as ``scheduler`` chooses, until none is executable.

    Nested graphs run by control-flow operations use a fresh scheduler from
    ``nested_scheduler``.

    Equivalent to repeating ``fire(graph, s, i, ...)`` for an ``i`` in
    ``executable(graph, s)`` until that set is empty, but it keeps a count of
    missing inputs per operation so that a run costs time linear in the
    graph's size. ``state`` itself is not changed.

    With ``keep`` (the executor's memory mode), a value is dropped from the
    state as soon as every operation that requires it has fired, unless its
    name is in ``keep``; the values of the names in ``keep`` are the same as
    without it. [The states in between are then not those of the
    definition: they lack values nobody will read again.]
    """
    ops = graph.operations
    values = dict(state.values)
    fired = set(state.fired)
    waiting: dict[str, list[int]] = {}
    readers: dict[str, int] = {}
    missing = [0] * len(ops)
    for i, o in enumerate(ops):
        if i in fired:
            continue
        required = o.required_inputs
        for n in required:
            if n not in values:
                missing[i] += 1
                waiting.setdefault(n, []).append(i)
        if keep is not None:
            for n in required:
                readers[n] = readers.get(n, 0) + 1
        if missing[i] == 0:
            scheduler.push(i)
    while len(scheduler):
        i = scheduler.pop()
        if i in fired:
            continue
        o = ops[i]
        # in output order, not a set: the order operations become executable must not depend on string hashing
        before = [n for n in dict.fromkeys(o.output_mapping) if n and n not in values]
        _fire_into(o, values, interpretation, nested_scheduler)
        fired.add(i)
        settle(before, o.required_inputs, Pending(waiting, missing, fired, scheduler), readers, keep, values)
    return State(values, frozenset(fired))


W = TypeVar("W", bound=Sequence[int])


@dataclass(frozen=True)
class Pending(Generic[W]):
    """The bookkeeping of a run that decides which operations become executable (see :func:`run`)."""

    waiting: dict[str, W]
    """For each name not yet defined, the operations that require it."""
    missing: list[int]
    """For each operation, how many of its required inputs are still undefined."""
    fired: set[int]
    scheduler: Scheduler


def settle(
    produced: Sequence[str],
    read: Sequence[str],
    pending: Pending[W],
    readers: dict[str, int],
    keep: frozenset[str] | None,
    values: dict[str, V],
) -> None:
    """What follows a firing in :func:`run`: release the operations waiting for ``produced``, then drop values.

    ``produced`` are the names the firing defined (in output order, so that
    the release order does not depend on string hashing), ``read`` the
    operation's required inputs. An operation becomes executable (is pushed)
    when its last missing input is defined. With ``keep`` (memory mode), a
    value that no unfired operation requires is dropped unless kept.
    """
    for n in produced:
        for j in pending.waiting.pop(n, ()):
            pending.missing[j] -= 1
            if pending.missing[j] == 0 and j not in pending.fired:
                pending.scheduler.push(j)
    if keep is not None:
        for n in read:
            readers[n] -= 1
            if readers[n] == 0 and n not in keep:
                values.pop(n, None)
        for n in produced:
            if n not in keep and readers.get(n, 0) == 0:
                values.pop(n, None)


def outputs_of(graph: Graph, state: State[V]) -> tuple[V, ...]:
    """The values of the graph outputs in ``state``; KeyError names an output left undefined (C3)."""
    missing = [n for n in graph.outputs if n not in state.values]
    if missing:
        raise KeyError(f"graph outputs without a value: {', '.join(missing)}")
    return tuple(state.values[n] for n in graph.outputs)


def evaluate(
    graph: Graph,
    inputs: Mapping[str, V],
    interpretation: Interpretation[V],
    scheduler: Scheduler | None = None,
) -> dict[str, V]:
    """Run ``graph`` from its initial state and return its outputs by name."""
    state = initial_state(graph, inputs, _initial_values(graph, interpretation))
    final = run(graph, state, interpretation, scheduler if scheduler is not None else FileOrder())
    return dict(zip(graph.outputs, outputs_of(graph, final), strict=True))
