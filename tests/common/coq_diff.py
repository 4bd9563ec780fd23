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
outer tensors, which is how the Python semantics sees them).
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from sonnx.execution.plan import GraphPlan
from sonnx.model import semantics as real_semantics
from sonnx.model.graph import Graph, Operation, make_graph, make_operation

SHORT = 4  # the operator code that gives one result too few (the Python semantics refuses it)


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
        """GRAPH-C1's at-most-one-assignment half (``c1_assign`` of OrderIndependence.v)."""
        sources = set(self.graph.inputs) | set(self.inits) | set(self.graph.captures)
        writer: dict[str, int] = {}
        for i, op in enumerate(self.graph.operations):
            for n in op.output_mapping:
                if n and (n in sources or writer.setdefault(n, i) != i):
                    return False
        return True


def generate(rng: random.Random) -> Case:
    """A random small graph, well formed or not (see the module docstring)."""
    size = rng.randint(3, 10)
    names = [f"t{k}" for k in range(size)]
    inputs = rng.sample(names, rng.randint(0, min(3, size)))
    inits = rng.sample(names, rng.randint(0, 2))
    ops = [_operation(rng, names) for _ in range(rng.randint(1, 7))]
    graph = make_graph("g", inputs, rng.sample(names, rng.randint(1, 3)), ops)
    given = {n: rng.randint(0, 50) for n in inputs if rng.random() < 0.9}
    outer = {n: rng.randint(0, 50) for n in sorted(graph.captures) if rng.random() < 0.7}
    return Case(graph, given, {n: rng.randint(0, 50) for n in inits}, outer, size)


def _operation(rng: random.Random, names: list[str]) -> Operation:
    ins = ["" if rng.random() < 0.15 else rng.choice(names) for _ in range(rng.randint(0, 3))]
    outs = ["" if rng.random() < 0.1 else rng.choice(names) for _ in range(rng.randint(1, 3))]
    code = SHORT if rng.random() < 0.03 else rng.randint(0, 3)
    nouts = max(0, len(outs) - 1) if code == SHORT else len(outs)
    param = rng.randint(0, 3) if code == 2 else rng.randint(0, 9)
    attributes: dict[str, object] = {"code": code, "param": param, "nouts": nouts}
    if rng.random() < 0.3:
        captured = sorted(set(rng.sample(names, rng.randint(1, 2))))
        attributes["body"] = make_graph("body", [], captured, [])
    return make_operation("Table", ins, outs, **attributes)  # type: ignore[arg-type]


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


def _values(words: list[str]) -> dict[str, int]:
    return {f"t{k}": int(v) for k, v in (w.split("=") for w in words)}


def run_coq(runner: Path, cases: Sequence[Case]) -> list[CoqResult]:
    """Run the extracted runner once on all ``cases``."""
    text = "".join(encode(c) for c in cases)
    done = subprocess.run([str(runner)], input=text, capture_output=True, text=True, check=True)
    results: list[CoqResult] = []
    steps: list[tuple[int, dict[str, int]]] = []
    fired: tuple[int, ...] = ()
    values: dict[str, int] = {}
    outputs: tuple[int | None, ...] = ()
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
        else:
            results.append(CoqResult(tuple(steps), fired, values, outputs))
            steps = []
    assert len(results) == len(cases), done.stderr
    return results


def _short_fired(case: Case, coq: CoqResult) -> bool:
    ops = case.graph.operations
    return any(_int(ops[i], "code") == SHORT and len(ops[i].output_mapping) > 0 for i in coq.fired)


def differences(case: Case, coq: CoqResult, sem: ModuleType = real_semantics, seed: int = 0) -> list[str]:
    """Every way ``sem`` (the semantics module, or a planted copy) disagrees with the runner on ``case``.

    Where the two models differ by design, the Python's error is required
    instead of equality: the Python semantics raises ValueError when an
    operator gives too few results (the Coq ``fire`` writes the results it
    has), KeyError from ``outputs_of`` when an output is undefined (Coq
    gives None), ValueError when ``fire`` is asked for a non-executable
    operation (Coq's ``step`` only fires executable ones).
    """
    try:
        return _differences(case, coq, sem, seed)
    except Exception as error:  # any exception the design does not predict is a difference
        return [f"unexpected {type(error).__name__}: {error}"]


def _differences(case: Case, coq: CoqResult, sem: ModuleType, seed: int) -> list[str]:
    g, interp = case.graph, TableInterpretation()
    start = sem.initial_state(g, case.inputs, case.inits, case.outer)
    found: list[str] = []
    if len(set(coq.fired)) != len(coq.fired):
        found.append(f"the Coq runner fired an operation twice: {coq.fired}")
    if _short_fired(case, coq):
        try:
            sem.run(g, start, interp, sem.FileOrder())
        except ValueError:
            return found
        return [*found, "run accepted an operator that gave too few results"]
    state = start
    for i, after in coq.steps:
        first = sem.executable(g, state)
        if not first or first[0] != i:
            return [*found, f"file order: Python would fire {first[:1]}, Coq fired {i}"]
        state = sem.fire(g, state, i, interp)
        if dict(state.values) != after:
            found.append(f"fire {i}: Python {dict(state.values)} != Coq {after}")
    if sem.executable(g, state):
        found.append(f"after Coq's run, Python still has executable operations {sem.executable(g, state)}")
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


def planted(name: str, replacements: Sequence[tuple[str, str]]) -> ModuleType:
    """A copy of :mod:`sonnx.model.semantics` with ``replacements`` applied (each must apply)."""
    import sys

    source = Path(real_semantics.__file__).read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in source, f"the plant {name} no longer applies: {old!r} not found"
        source = source.replace(old, new)
    module = ModuleType(f"sonnx.model._planted_{name}")
    module.__package__ = "sonnx.model"
    sys.modules[module.__name__] = module
    exec(compile(source, f"<planted {name}>", "exec"), module.__dict__)
    return module


def plan_differences(case: Case, coq: CoqResult, seed: int = 0) -> list[str]:
    """Every way the compiled plan disagrees with the runner on ``case`` (file order, memory mode, random order)."""
    try:
        return _plan_differences(case, coq, seed)
    except Exception as error:  # any exception the design does not predict is a difference
        return [f"plan: unexpected {type(error).__name__}: {error}"]


def _plan_differences(case: Case, coq: CoqResult, seed: int) -> list[str]:
    g = case.graph
    seeded = dict(real_semantics.initial_state(g, case.inputs, case.inits, case.outer).values)
    interp: Any = PlanInterpretation()
    plan = GraphPlan(g, interp, seeded, None)
    if _short_fired(case, coq):
        try:
            plan.run(dict(seeded))
        except ValueError:
            return []
        return ["plan: accepted an operator that gave too few results"]
    found: list[str] = []
    if plan.run(dict(seeded)) != coq.values:
        found.append(f"plan (file order): values {plan.run(dict(seeded))} != Coq {coq.values}")
    if case.c1_holds() and plan.run(dict(seeded), real_semantics.SeededRandomOrder(seed)) != coq.values:
        found.append("plan (seeded random order): values differ from Coq's")
    if None not in coq.outputs:
        kept = GraphPlan(g, interp, seeded, frozenset(g.outputs)).run(dict(seeded))
        if tuple(kept[n] for n in g.outputs) != coq.outputs:
            found.append(f"plan (memory mode): outputs {[kept.get(n) for n in g.outputs]} != Coq {coq.outputs}")
    return found


def has_cycle(graph: Graph) -> bool:
    """Whether some operation (transitively) requires a tensor it writes (GRAPH-ACYCLIC violated)."""
    ops = graph.operations
    writers: dict[str, set[int]] = {}
    for i, op in enumerate(ops):
        for n in op.output_mapping:
            if n:
                writers.setdefault(n, set()).add(i)
    after = {i: {j for n in op.required_inputs for j in writers.get(n, ())} for i, op in enumerate(ops)}
    colour = dict.fromkeys(range(len(ops)), 0)

    def visit(i: int) -> bool:
        colour[i] = 1
        for j in after[i]:
            if colour[j] == 1 or (colour[j] == 0 and visit(j)):
                return True
        colour[i] = 2
        return False

    return any(colour[i] == 0 and visit(i) for i in range(len(ops)))


# Bugs planted in copies of sonnx.model.semantics; the differential must find each.
PLANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "implicit_ignored_by_is_executable": (
        ("graph.operations[index].required_inputs", "[n for n in graph.operations[index].input_mapping if n]"),
    ),
    "implicit_ignored_by_run": (("required = o.required_inputs", "required = [n for n in o.input_mapping if n]"),),
    "run_does_not_record_a_firing": (("        fired.add(i)\n", ""),),
    "run_releases_one_input_early": (("if pending.missing[j] == 0 and", "if pending.missing[j] <= 1 and"),),
}
