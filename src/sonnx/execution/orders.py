"""The order-independence check of the executor: valid schedules, outputs compared bit for bit.

The spec says results do not depend on the order in which executable
operations fire (spec/graph.rst, dynamic semantics; the general theorem,
``proofs/order_independence.py``, covers every order of the semantics under
GRAPH-C1 and GRAPH-C1-SOURCES). This is the concrete check of the executor on one model and one
input set: run it under several valid schedules and compare every output's
bytes (:func:`sonnx.ops.values.same_value`).

What the verdict ``EXEC-ORDERS`` claims, exactly:

* PROVED when every valid order was run: the main graph's valid orders (its
  operations fired one at a time, each when executable) are enumerated when
  there are at most :data:`EXHAUSTIVE_LIMIT` of them, and every nested graph
  has a single valid order; a model with one valid order runs once;
* TESTED otherwise: file order and ``count`` distinct seeded random orders of
  the main graph, nested graphs also in seeded random orders, gave identical
  bytes; the verdict says how many orders were tried;
* VIOLATED when two runs differ, naming both schedules.

A model that declares its execution order (metadata ``sonnx.execution_order``,
:mod:`sonnx.model.metadata`; spec rule STRICT-METADATA) has that order run too,
as the schedule ``declared``, and compared like the others. A declared order
that is malformed makes the verdict UNKNOWN with the one-line reason: the
check cannot say that the order the model asks for gives the same results.

No schedule is run twice. The firing sequence a scheduler takes depends on
names only, never on values, so the main graph's sequence for a seed is
worked out first from the compiled plan (:meth:`sonnx.execution.plan.GraphPlan.simulate`,
no kernel runs); a seed whose sequence was already run is skipped without
executing anything. (With nested graphs, whose own seeded orders change from
seed to seed, every drawn seed runs.)

Schedules are named by seed and the SHA-256 of the main graph's firing
sequence, so that anyone can replay them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..base.errors import SonnxError, ToolError
from ..base.progress import Say, Steps, quiet
from ..base.verdict import Severity, Verdict, Witness
from ..model.graph import Graph, Model
from ..model.metadata import OrderError, declared_order
from ..model.semantics import FileOrder, Scheduler, SeededRandomOrder
from ..model.structure import firings
from ..ops.values import same_value
from .names import ID

MAX_ATTEMPTS_PER_ORDER = 20
EXHAUSTIVE_LIMIT = 64
"""The most valid orders of the main graph that are enumerated and all run (then the verdict is PROVED)."""
ENUMERATION_MAX_OPERATIONS = 40
"""Orders are enumerated only for main graphs of at most this many operations (the search is quadratic)."""


class RecordingScheduler:
    """A scheduler that remembers the order in which it let operations fire."""

    def __init__(self, inner: Scheduler) -> None:
        self.inner = inner
        self.fired: list[int] = []

    def push(self, index: int) -> None:
        self.inner.push(index)

    def pop(self) -> int:
        i = self.inner.pop()
        self.fired.append(i)
        return i

    def __len__(self) -> int:
        return len(self.inner)


class FixedOrder:
    """Fire the operations in a given valid order (each is executable when its turn comes)."""

    def __init__(self, order: tuple[int, ...]) -> None:
        self._order = list(reversed(order))
        self._pool: set[int] = set()

    def push(self, index: int) -> None:
        self._pool.add(index)

    def pop(self) -> int:
        i = self._order.pop()
        if i not in self._pool:
            raise AssertionError(f"operation {i} is not executable at its turn in the fixed order")
        self._pool.remove(i)
        return i

    def __len__(self) -> int:
        return len(self._pool) if self._order else 0


def valid_orders(graph: Graph, seeded: frozenset[str], limit: int) -> list[tuple[int, ...]] | None:
    """Every order in which a run can fire the graph's operations, or None when there are more than ``limit``.

    ``seeded`` are the names with a value before anything fires (inputs,
    initializers, captured outer names). An operation fires when all its
    required inputs have values, at most once; orders are the sequences a run
    can take until nothing is executable.
    """
    ops = graph.operations
    required = [frozenset(op.required_inputs) for op in ops]
    found: list[tuple[int, ...]] = []
    # depth-first over states (fired sequence, defined names); iterative, bounded by ``limit``
    stack: list[tuple[tuple[int, ...], frozenset[str]]] = [((), seeded)]
    while stack:
        fired, defined = stack.pop()
        done = set(fired)
        ready = [j for j in range(len(ops)) if j not in done and required[j] <= defined]
        if not ready:
            found.append(fired)
            if len(found) > limit:
                return None
            continue
        for j in reversed(ready):
            stack.append(((*fired, j), defined | {o for o in ops[j].output_mapping if o}))
    return found


def single_order(graph: Graph, seeded: frozenset[str]) -> bool:
    """Whether a run of ``graph`` has exactly one possible firing order (never two executable at once).

    Linear time: Kahn's algorithm on the counts of missing inputs.
    """
    ops = graph.operations
    steps = firings((op.required_inputs for op in ops), set(seeded), lambda j: dict.fromkeys(ops[j].output_mapping))
    return not any(others for _, others in steps)


def _seeded(g: Graph, main: bool) -> frozenset[str]:
    names = frozenset(g.inputs) | frozenset(g.initialized)
    return names if main else names | g.captures


def _nested_have_one_order(model: Model) -> bool:
    return all(single_order(g, _seeded(g, False)) for _p, g in model.graph.nested() if g is not model.graph)


def _digest(sequence: list[int] | tuple[int, ...]) -> str:
    return hashlib.sha256(",".join(map(str, sequence)).encode()).hexdigest()


def _seeded_nested(seed: int) -> Callable[[], Scheduler]:
    """A factory of seeded random schedulers for nested graphs: the k-th nested run uses seed (seed, k)."""
    counter: Iterator[int] = iter(range(1 << 62))

    def make() -> Scheduler:
        return SeededRandomOrder(seed * 1_000_033 + next(counter))

    return make


def _violation(name: str, schedule: str, schedules: list[dict[str, Any]], source: Mapping[str, Any]) -> Verdict:
    return Verdict.violated(
        ID,
        Witness(
            f"output {name!r} differs between file order and {schedule}",
            {"output": name, "schedules": schedules, **source},
        ),
        Severity.ERROR,
        engine="executor",
    )


def check_orders(
    model: Model,
    count: int,
    seed: int = 0,
    inputs: Mapping[str, Any] | None = None,
    source: Mapping[str, Any] | None = None,
    say: Say = quiet,
) -> Verdict:
    """Compare the outputs of several valid schedules bit for bit; see the module docstring for the claim.

    ``source`` is what the details record about where ``inputs`` came from
    (``{"input_seed": seed}`` when they were all drawn with the seed, the
    default, or the file that gave them: ``sonnx.execution.inputs.InputSource.details``).
    The schedules' own seeds derive from ``seed`` either way. ``say`` hears the schedules run out of those
    to run, with an estimate of the time left (:class:`~sonnx.base.progress.Steps`).
    """
    from .executor import execute, model_plan  # the kernels: imported when schedules run, not with the title
    from .inputs import random_inputs

    about = dict(source) if source is not None else {"input_seed": seed}
    try:
        declared = declared_order(model)
    except OrderError as exc:
        return Verdict.unknown(ID, f"the model's declared execution order cannot be run: {exc}", engine="executor")
    try:
        feeds = dict(inputs) if inputs is not None else random_inputs(model, seed)
        base_sched = RecordingScheduler(FileOrder())
        reference = execute(model, feeds, base_sched)
        schedules: list[dict[str, Any]] = [{"schedule": "file-order", "sha256": _digest(base_sched.fired)}]
        g = model.graph
        if declared is not None and declared != tuple(base_sched.fired):
            got = execute(model, feeds, FixedOrder(declared))
            entry = {"schedule": "declared", "sha256": _digest(declared)}
            schedules.append(entry)
            for name, value in reference.items():
                if not same_value(value, got[name]):
                    return _violation(name, "declared", schedules, about)
        ran = {tuple(base_sched.fired)} | ({declared} if declared is not None else set())
        seeded = _seeded(g, True)
        orders: list[tuple[int, ...]] | None = None
        if _nested_have_one_order(model):
            if single_order(g, seeded):
                orders = [tuple(base_sched.fired)]
            elif len(g.operations) <= ENUMERATION_MAX_OPERATIONS:
                orders = valid_orders(g, seeded, EXHAUSTIVE_LIMIT)
        if orders is not None:
            steps = Steps(say, "valid orders", len(orders))
            for k, order in enumerate(orders):
                if order not in ran:
                    got = execute(model, feeds, FixedOrder(order))
                    entry = {"schedule": f"valid-order:{k}", "sha256": _digest(order)}
                    schedules.append(entry)
                    for name, value in reference.items():
                        if not same_value(value, got[name]):
                            return _violation(name, entry["schedule"], schedules, about)
                steps.advance()
            details: dict[str, Any] = {**about, "valid_orders": len(orders), "schedules": schedules}
            if len(orders) == 1:
                details["note"] = "the model has a single valid order (nested graphs too): one run is every run"
            return Verdict(ID, Verdict.proved(ID).status, Severity.ERROR, engine="executor", details=details)
        seen = set(ran)
        plan = None if _has_nested(model) else model_plan(model).main
        k = attempts = randoms = 0
        steps = Steps(say, "random schedules", count)
        while randoms < count and attempts < count * MAX_ATTEMPTS_PER_ORDER:
            sched_seed = seed * 1_000_003 + k
            k += 1
            attempts += 1
            planned = plan.simulate(SeededRandomOrder(sched_seed))[0] if plan is not None else None
            if planned is not None and planned in seen and g.operations:
                continue  # this seed repeats a schedule already run: nothing to execute
            rec = RecordingScheduler(SeededRandomOrder(sched_seed))
            got = execute(model, feeds, rec, nested=_seeded_nested(sched_seed))
            order = tuple(rec.fired)
            if planned is not None and order != planned:
                raise ToolError(f"random:{sched_seed}: the run fired another sequence than the plan worked out")
            seen.add(order)
            entry = {"schedule": f"random:{sched_seed}", "sha256": _digest(rec.fired)}
            schedules.append(entry)
            randoms += 1
            steps.advance()
            for name, value in reference.items():
                if not same_value(value, got[name]):
                    return _violation(name, entry["schedule"], schedules, about)
    except ToolError:
        raise
    except SonnxError as exc:
        return Verdict.unknown(ID, f"the model could not be executed: {exc.one_line()}", engine="executor")
    tried = sum(1 for e in schedules if str(e["schedule"]).startswith("random:"))
    also = " and the declared order" if any(e["schedule"] == "declared" for e in schedules) else ""
    if tried == 0:
        return Verdict.unknown(ID, f"no distinct random schedule found in {attempts} draws; nothing was compared",
                               engine="executor")
    scope = "nested graphs in seeded random orders too" if _has_nested(model) else "one graph"
    return Verdict.tested(
        ID,
        f"file order{also} and {tried} distinct seeded random orders of the main graph ({scope}); not every valid "
        f"order was run (more than {EXHAUSTIVE_LIMIT}, a main graph of more than {ENUMERATION_MAX_OPERATIONS} "
        "operations, or nested graphs with several orders)",
        {**about, "requested": count, "schedules": schedules},
        engine="executor",
    )


def _has_nested(model: Model) -> bool:
    return any(g is not model.graph for _p, g in model.graph.nested())
