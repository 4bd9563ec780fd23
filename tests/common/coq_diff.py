"""Differential testing of :mod:`sonnx.model.semantics` against the runner extracted from Coq.

The runner (``proofs/coq/Extract.v``, built by ``tools/coq_runner.py``) is the
file-order maximal run of the Coq semantics of spec section 3, about which
``order_independence``, ``runner_correct`` and ``maximal_run_exists`` are
proved. This module generates graphs with the :mod:`sonnx.model.graph`
builders, implements the runner's operator table as a Python
:class:`~sonnx.model.semantics.Interpretation`, feeds both sides and lists
every difference. The graphs are deliberately not well formed: GRAPH-C1
violations (a tensor written twice, a graph input overwritten), cycles,
dead operations, undefined and omitted inputs, captures given or not by the
outer scope, and implicit inputs (an operation's nested graph capturing
outer tensors, which is how the Python semantics sees them). Operations
with the failing operator fail or not depending on values computed upstream;
the runner then reports the state after each firing before the failure and
the failed operation (``etrace_fuel`` of ErrorTrace.v, which ends as
``erun_fuel`` of Errors.v), and ``fire`` must reach the same states and
raise at that operation.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sonnx.execution.plan import GraphPlan
from sonnx.model import semantics as real_semantics
from sonnx.model.graph import Graph, Operation, make_graph, make_operation

SHORT = 4  # the operator code that gives one result too few (the Python semantics refuses it)
FAILING = 5  # the operator code whose kernel fails when its first input is given and odd (``fails`` of Extract.v)


class KernelFailure(Exception):
    """What the failing operator's kernel raises; the message starts with the operation's label."""


def argv(a: int | None) -> int:
    """An argument as a number: 0 when omitted, the value plus one when given (``argv`` of Extract.v)."""
    return 0 if a is None else a + 1


def weighted(k: int, values: Sequence[int | None]) -> int:
    return sum((k + n) * argv(a) for n, a in enumerate(values))


def max_arg(values: Sequence[int | None]) -> int:
    return max((argv(a) for a in values), default=0)


def compute(code: int, param: int, args: Sequence[int | None], imps: Sequence[int | None]) -> int:
    """The operator table of Extract.v (``compute``), written again in Python."""
    if code == 1:
        return param + max(max_arg(args), max_arg(imps))
    if code == 2:
        return argv(args[param] if param < len(args) else None) + 2 * weighted(1, imps)
    if code == 3:
        return param
    return param + weighted(1, args) + weighted(2, imps)


class TableInterpretation:
    """The operator table as an interpretation: attributes ``code``, ``param``, ``nouts``; ``body`` for captures.

    The implicit inputs are read as the Python semantics offers them: by
    running the nested graph ``body`` (no operations, its outputs the
    captured names) in the scope of the firing operation.
    """

    def apply(
        self, operation: Operation, args: Sequence[int | None], scope: real_semantics.Scope[int]
    ) -> Sequence[int]:
        code, param, nouts = (_int(operation, k) for k in ("code", "param", "nouts"))
        body = operation.attribute("body")
        imps: Sequence[int | None] = scope.run_nested(body.value, ()) if body is not None else ()
        if code == FAILING and args and args[0] is not None and args[0] % 2 == 1:
            raise KernelFailure(f"{operation.label}: the failing operator's first input {args[0]} is odd")
        value = compute(code, param, args, imps)
        return [value + j for j in range(nouts)]


class _Bound:
    """An operation bound once for the compiled plan: it applies the table with the running scope."""

    needs_scope = True

    def __init__(self, interpretation: TableInterpretation, operation: Operation) -> None:
        self._interpretation = interpretation
        self._operation = operation

    def __call__(self, args: Sequence[int | None], scope: real_semantics.Scope[int]) -> tuple[int, ...]:
        return tuple(self._interpretation.apply(self._operation, args, scope))


class PlanInterpretation(TableInterpretation):
    """The table as the compiled plan (:class:`~sonnx.execution.plan.GraphPlan`) binds operators."""

    def bind(self, operation: Operation) -> _Bound:
        return _Bound(self, operation)


def _int(operation: Operation, name: str) -> int:
    attribute = operation.attribute(name)
    assert attribute is not None and isinstance(attribute.value, int)
    return attribute.value


@dataclass(frozen=True)
class Case:
    """A generated graph with the values of its inputs, initializers and outer tensors."""

    graph: Graph
    inputs: dict[str, int]
    inits: dict[str, int]
    outer: dict[str, int]
    tensors: int

    def c1_holds(self) -> bool:
        """GRAPH-C1 and GRAPH-C1-SOURCES (``c1_assign`` of OrderIndependence.v)."""
        sources = set(self.graph.inputs) | set(self.inits) | set(self.graph.captures)
        writer: dict[str, int] = {}
        for i, op in enumerate(self.graph.operations):
            for n in op.output_mapping:
                if n and (n in sources or writer.setdefault(n, i) != i):
                    return False
        return True


def generate(rng: random.Random) -> Case:
    """A random small graph, well formed or not (see the module docstring).

    A quarter of the graphs write each tensor at most once and never a graph
    input or initializer, so that GRAPH-C1 holds often enough for the
    order-independence checks (with and without failures) to bite.
    """
    size = rng.randint(3, 10)
    names = [f"t{k}" for k in range(size)]
    inputs = rng.sample(names, rng.randint(0, min(3, size)))
    inits = rng.sample(names, rng.randint(0, 2))
    unwritten = sorted(set(names) - set(inputs) - set(inits)) if rng.random() < 0.25 else None
    ops = [_operation(rng, names, f"n{k}", unwritten) for k in range(rng.randint(1, 7))]
    graph = make_graph("g", inputs, rng.sample(names, rng.randint(1, 3)), ops)
    given = {n: rng.randint(0, 50) for n in inputs if rng.random() < 0.9}
    outer = {n: rng.randint(0, 50) for n in sorted(graph.captures) if rng.random() < 0.7}
    return Case(graph, given, {n: rng.randint(0, 50) for n in inits}, outer, size)


def _operation(rng: random.Random, names: list[str], name: str, unwritten: list[str] | None) -> Operation:
    """A random operation; with ``unwritten``, its outputs are drawn from (and removed from) that list."""
    ins = ["" if rng.random() < 0.15 else rng.choice(names) for _ in range(rng.randint(0, 3))]
    outs = [_output(rng, names, unwritten) for _ in range(rng.randint(1, 3))]
    draw = rng.random()
    code = SHORT if draw < 0.03 else FAILING if draw < 0.13 else rng.randint(0, 3)
    nouts = max(0, len(outs) - 1) if code == SHORT else len(outs)
    param = rng.randint(0, 3) if code == 2 else rng.randint(0, 9)
    attributes: dict[str, object] = {"code": code, "param": param, "nouts": nouts}
    if rng.random() < 0.3:
        captured = sorted(set(rng.sample(names, rng.randint(1, 2))))
        attributes["body"] = make_graph("body", [], captured, [])
    return make_operation("Table", ins, outs, name, **attributes)  # type: ignore[arg-type]


def _output(rng: random.Random, names: list[str], unwritten: list[str] | None) -> str:
    if rng.random() < 0.1 or unwritten == []:
        return ""
    if unwritten is None:
        return rng.choice(names)
    return unwritten.pop(rng.randrange(len(unwritten)))


def _ids(names: Sequence[str]) -> str:
    return " ".join("-" if not n else n[1:] for n in names)


def _pairs(values: dict[str, int]) -> str:
    return " ".join(f"{n[1:]} {v}" for n, v in values.items())


def encode(case: Case) -> str:
    """The runner's input block for ``case`` (the line format of proofs/coq/runner/main.ml)."""
    g = case.graph
    lines = [
        f"inputs {_ids(g.inputs)}",
        f"inits {_ids(sorted(case.inits))}",
        f"captures {_ids(sorted(g.captures))}",
        f"outputs {_ids(g.outputs)}",
    ]
    for op in g.operations:
        code, param, nouts = (_int(op, k) for k in ("code", "param", "nouts"))
        lines.append(
            f"op {code} {param} {nouts} | {_ids(op.input_mapping)} | {_ids(op.implicit_inputs)} "
            f"| {_ids(op.output_mapping)}"
        )
    lines += [f"inp {_pairs(case.inputs)}", f"init {_pairs(case.inits)}", f"outer {_pairs(case.outer)}"]
    lines += [f"tensors {case.tensors}", "run"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class CoqResult:
    """What the extracted runner printed for one graph."""

    steps: tuple[tuple[int, dict[str, int]], ...]
    fired: tuple[int, ...]
    values: dict[str, int]
    outputs: tuple[int | None, ...]
    failed: int | None = None
    """The operation whose firing failed (the run then has no state), or None."""
    out_of_fuel: int | None = None
    """Nested blocks: the main operation that had no result because a Loop needed more than the fuel, or None."""


def _values(words: list[str]) -> dict[str, int]:
    return {f"t{k}": int(v) for k, v in (w.split("=") for w in words)}


def run_coq(runner: Path, cases: Sequence[Case]) -> list[CoqResult]:
    """Run the extracted runner once on all ``cases``."""
    return run_driver(runner, "".join(encode(c) for c in cases), len(cases))


def run_driver(runner: Path, text: str, count: int) -> list[CoqResult]:
    """Feed ``text`` (``count`` blocks, flat or nested) to the runner and read one result per block."""
    done = subprocess.run([str(runner)], input=text, capture_output=True, text=True, check=True)
    results: list[CoqResult] = []
    steps: list[tuple[int, dict[str, int]]] = []
    fired: tuple[int, ...] = ()
    values: dict[str, int] = {}
    outputs: tuple[int | None, ...] = ()
    failed: int | None = None
    out_of_fuel: int | None = None
    for line in done.stdout.splitlines():
        head, *words = line.split()
        if head == "step":
            steps.append((int(words[0]), _values(words[1:])))
        elif head == "fired":
            fired = tuple(int(w) for w in words)
        elif head == "vals":
            values = _values(words)
        elif head == "outs":
            outputs = tuple(None if w == "-" else int(w) for w in words)
        elif head == "failed":
            failed = int(words[0])
        elif head == "outoffuel":
            out_of_fuel = int(words[0])
        else:
            assert head == "done", line
            results.append(CoqResult(tuple(steps), fired, values, outputs, failed, out_of_fuel))
            steps, fired, values, outputs, failed, out_of_fuel = [], (), {}, (), None, None
    assert len(results) == count, done.stderr
    return results


def _short_fired(case: Case, coq: CoqResult) -> bool:
    """Whether the run failed on the "short" operator (Errors.v's ``checked`` refuses too few results)."""
    return coq.failed is not None and _int(case.graph.operations[coq.failed], "code") == SHORT


def _expected_error(case: Case, coq: CoqResult) -> type[Exception]:
    """What the Python raises where the runner failed: ValueError for too few results, else the kernel's."""
    return ValueError if _short_fired(case, coq) else KernelFailure


def _failure_differences(case: Case, coq: CoqResult, who: str, attempt: Callable[[Any], object]) -> list[str]:
    """Where the runner failed: file order must raise naming the failed operation, under GRAPH-C1 the
    other orders must raise too (``error_order_independence``: the failing operation may differ)."""
    assert coq.failed is not None
    expected, label = _expected_error(case, coq), case.graph.operations[coq.failed].label
    orders: list[Any] = [real_semantics.FileOrder()]
    if case.c1_holds():
        orders += [real_semantics.SeededRandomOrder(coq.failed), real_semantics.LastReadyOrder()]
    found: list[str] = []
    for order in orders:
        name = type(order).__name__
        try:
            attempt(order)
        except (KernelFailure, ValueError) as error:
            if name == "FileOrder" and (not isinstance(error, expected) or not str(error).startswith(label + ":")):
                found.append(f"{who} ({name}): raised {error!r}, Coq failed at {label}")
            continue
        found.append(f"{who} ({name}): gave a result where Coq's file-order run fails at {label}")
    return found


def _failure_step_differences(case: Case, coq: CoqResult, sem: ModuleType, start: Any) -> list[str]:
    """Where the runner failed at operation I: ``fire`` in file order gives the runner's states up to the
    failure (the model's steps, ``error_trace_correct`` of ErrorTrace.v), then raises at I with I's label."""
    assert coq.failed is not None
    g, interp, state = case.graph, TableInterpretation(), start
    expected, label = _expected_error(case, coq), g.operations[coq.failed].label
    for i, after in coq.steps:
        first = sem.executable(g, state)
        if not first or first[0] != i:
            return [f"file order before the failure: Python would fire {first[:1]}, Coq fired {i}"]
        try:
            state = sem.fire(g, state, i, interp)
        except (KernelFailure, ValueError) as error:
            return [f"fire {i}: raised {error!r} before Coq's failure at {label}"]
        if dict(state.values) != after:
            return [f"fire {i} before the failure: Python {dict(state.values)} != Coq {after}"]
    first = sem.executable(g, state)
    if not first or first[0] != coq.failed:
        return [f"file order at the failure: Python would fire {first[:1]}, Coq's {label} fails"]
    try:
        sem.fire(g, state, coq.failed, interp)
    except (KernelFailure, ValueError) as error:
        if isinstance(error, expected) and str(error).startswith(label + ":"):
            return []
        return [f"fire {coq.failed}: raised {error!r}, Coq failed at {label}"]
    return [f"fire {coq.failed}: gave a state where Coq's {label} fails"]


def differences(
    case: Case, coq: CoqResult, sem: ModuleType = real_semantics, seed: int = 0, failure_steps: bool = True
) -> list[str]:
    """Every way ``sem`` (the semantics module, or a planted copy) disagrees with the runner on ``case``.

    Where the two models differ by design, the Python's error is required
    instead of equality: the Python semantics raises ValueError when an
    operator gives too few results (the Coq ``fire`` writes the results it
    has), KeyError from ``outputs_of`` when an output is undefined (Coq
    gives None), ValueError when ``fire`` is asked for a non-executable
    operation (Coq's ``step`` only fires executable ones).

    Where the runner failed, ``fire`` is compared step by step up to the
    failure; ``failure_steps=False`` leaves that comparison out (only to
    show that a planted bug escapes without it).
    """
    try:
        return _differences(case, coq, sem, seed, failure_steps)
    except Exception as error:  # any exception the design does not predict is a difference
        return [f"unexpected {type(error).__name__}: {error}"]


def _differences(case: Case, coq: CoqResult, sem: ModuleType, seed: int, failure_steps: bool) -> list[str]:
    g, interp = case.graph, TableInterpretation()
    start = sem.initial_state(g, case.inputs, case.inits, case.outer)
    found: list[str] = []
    if len(set(coq.fired)) != len(coq.fired):
        found.append(f"the Coq runner fired an operation twice: {coq.fired}")
    if coq.failed is not None:

        def attempt(order: Any) -> object:
            return sem.run(g, start, interp, getattr(sem, type(order).__name__)(*_order_args(order)))

        if failure_steps:
            found += _failure_step_differences(case, coq, sem, start)
        return [*found, *_failure_differences(case, coq, "run", attempt)]
    state, stepped = step_differences(sem, g, start, coq, interp)
    found += stepped
    if state is None:
        return found
    for j in range(len(g.operations)):
        if j in state.fired:
            try:
                sem.fire(g, state, j, interp)
            except ValueError:
                continue
            found.append(f"fire accepted operation {j}, which has fired")
    schedulers = [sem.FileOrder()]
    if case.c1_holds():
        schedulers += [sem.SeededRandomOrder(seed), sem.LastReadyOrder()]
    for scheduler in schedulers:
        found += _compare_run(g, sem.run(g, start, interp, scheduler), coq, sem, type(scheduler).__name__)
    return found


def _compare_run(g: Graph, final: real_semantics.State[int], coq: CoqResult, sem: ModuleType, who: str) -> list[str]:
    found: list[str] = []
    if dict(final.values) != coq.values:
        found.append(f"run ({who}): values {dict(final.values)} != Coq {coq.values}")
    if final.fired != frozenset(coq.fired):
        found.append(f"run ({who}): fired {sorted(final.fired)} != Coq {sorted(coq.fired)}")
    if None in coq.outputs:
        try:
            sem.outputs_of(g, final)
        except KeyError:
            return found
        found.append(f"run ({who}): outputs_of gave values where Coq has an undefined output")
    elif tuple(sem.outputs_of(g, final)) != coq.outputs:
        found.append(f"run ({who}): outputs {sem.outputs_of(g, final)} != Coq {coq.outputs}")
    return found


def step_differences(
    sem: ModuleType, g: Graph, start: Any, coq: CoqResult, interp: Any
) -> tuple[Any, list[str]]:
    """``fire`` applied in file order as the runner's steps go: the state reached and every difference.

    The state is None when Python would choose another operation than the runner did (the steps stop there).
    """
    state = start
    found: list[str] = []
    for i, after in coq.steps:
        first = sem.executable(g, state)
        if not first or first[0] != i:
            return None, [*found, f"file order: Python would fire {first[:1]}, Coq fired {i}"]
        state = sem.fire(g, state, i, interp)
        if dict(state.values) != after:
            found.append(f"fire {i}: Python {dict(state.values)} != Coq {after}")
    if sem.executable(g, state):
        found.append(f"after Coq's run, Python still has executable operations {sem.executable(g, state)}")
    return state, found


def guarded(compare: Callable[[], list[str]], who: str) -> list[str]:
    """``compare()``, with any exception the design does not predict reported as a difference of ``who``."""
    try:
        return compare()
    except Exception as error:
        return [f"{who}: unexpected {type(error).__name__}: {error}"]


def memory_mode_differences(g: Graph, interp: Any, seeded: dict[str, int], coq: CoqResult) -> list[str]:
    """The compiled plan in memory mode (only the graph outputs kept) against the runner's outputs."""
    if None in coq.outputs:
        return []
    kept = GraphPlan(g, interp, seeded, frozenset(g.outputs)).run(dict(seeded))
    if tuple(kept[n] for n in g.outputs) != coq.outputs:
        return [f"plan (memory mode): outputs {[kept.get(n) for n in g.outputs]} != Coq {coq.outputs}"]
    return []


def plan_differences(case: Case, coq: CoqResult, seed: int = 0) -> list[str]:
    """Every way the compiled plan disagrees with the runner on ``case`` (file order, memory mode, random order)."""
    return guarded(lambda: _plan_differences(case, coq, seed), "plan")


def _plan_differences(case: Case, coq: CoqResult, seed: int) -> list[str]:
    g = case.graph
    seeded = dict(real_semantics.initial_state(g, case.inputs, case.inits, case.outer).values)
    interp: Any = PlanInterpretation()
    plan = GraphPlan(g, interp, seeded, None)
    if coq.failed is not None:
        return _failure_differences(case, coq, "plan", lambda order: plan.run(dict(seeded), order))
    found: list[str] = []
    if plan.run(dict(seeded)) != coq.values:
        found.append(f"plan (file order): values {plan.run(dict(seeded))} != Coq {coq.values}")
    if case.c1_holds() and plan.run(dict(seeded), real_semantics.SeededRandomOrder(seed)) != coq.values:
        found.append("plan (seeded random order): values differ from Coq's")
    return found + memory_mode_differences(g, interp, seeded, coq)


def _order_args(order: Any) -> tuple[int, ...]:
    """The constructor arguments that rebuild ``order`` in a (planted) copy of the semantics."""
    return (order.seed,) if isinstance(order, real_semantics.SeededRandomOrder) else ()
