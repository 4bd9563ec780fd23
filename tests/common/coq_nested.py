"""Graphs with nested graphs for the differential test against ``run_ng`` of Nested.v (spec 1.4, 3.6).

``proofs/coq/ExtractNested.v`` extracts ``run_ng``, the Coq semantics of If
and Loop operations whose bodies are graphs, every graph at every depth run
in file order; ``nested_order_independence`` and ``nested_run_function``
say that under GRAPH-C1 at every depth every schedule gives the same. This
module generates such graphs with the :mod:`sonnx.model.graph` builders,
implements the extraction's parameters as a Python interpretation whose If
and Loop run their bodies through ``scope.run_nested`` (so the Python
semantics runs them, as the executor's kernels do), and writes the runner's
nested blocks (``proofs/coq/runner/nested_driver.ml``).

The parameters, as in ExtractNested.v: table results reduced modulo
:data:`MODULUS`; a value is true when odd, an omitted condition false; the
iteration number is the value; a Loop runs ``M mod 4`` iterations at most,
and while its condition holds when ``M`` is omitted; a Loop's outputs are its
final carried values, then each scan output as the weighted sum of its values
over the iterations. Every Loop runs at most :data:`FUEL` iterations (``nfuel``):
one that needs more ends the run without a result in Coq, and raises
:class:`OutOfFuel` in the mirror. ``sonnx``'s own semantics runs such a loop
until its condition is false, so :func:`generate_nested` keeps only cases
whose Loops end within the fuel (it runs the mirror to check), and
:func:`generate_nested` with ``diverging=True`` only cases where a Loop runs out
of it, on which both sides must report that outcome.

Where the two models differ by design, the generator stays inside what both
define, and says so:

* an undefined body output is ``undef`` in Coq and a KeyError from
  ``outputs_of`` in Python (the executor's If and Loop kernels let it
  propagate): every body output is chosen among the names that are defined
  at the end of every maximal run of the body (its inputs, its captures,
  and the outputs of the operations of the least fixpoint of "all required
  inputs defined", which is the set every maximal run fires). So the
  sentinel never shows; a Python KeyError there is reported as a
  difference, never turned into the sentinel;
* Coq binds an omitted input of a body to "undefined", the Python cannot
  (``run_nested`` takes values): a Loop's carried inputs are never omitted,
  and an omitted condition runs no iteration, so a body never gets one;
  ``M`` and the condition are omitted at times, and table operations omit
  inputs at every depth;
* failing and "short" operators are not given to nested cases (Nested.v has
  no error semantics; the flat cases cover them against Errors.v).

Inside these limits the graphs are not well formed: GRAPH-C1 violations at
every depth (a tensor written twice, a body input overwritten), cycles and
dead operations in bodies, bodies that write a name of an enclosing graph
(shadowing it: it is then not a capture), captures two levels up, and
names that nothing defines (captures of the main graph, given by the outer
scope or not).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from sonnx.model import semantics as real_semantics
from sonnx.model.graph import Graph, Operation, make_graph, make_operation

from .coq_diff import Case, TableInterpretation, _ids, _int, _pairs, weighted

MODULUS = 1009  # ``modulus`` of ExtractNested.v
UNDEF = 4096  # ``undef_value`` of ExtractNested.v: a body output left undefined
MAX_DEPTH = 3  # the main graph is depth 0; bodies of bodies of bodies at most
FUEL = 8  # ``nfuel`` of ExtractNested.v: the most iterations any Loop runs
DRAWS = 5000  # the most graphs drawn for one case of the kind asked for (about 1 in 30 runs out of fuel)


class OutOfFuel(Exception):
    """A Loop of the mirror needed more than :data:`FUEL` iterations (``run_ng`` gives no result)."""


def truth(value: int | None) -> bool:
    """``ntruth`` of ExtractNested.v: odd values are true, an omitted condition is false."""
    return value is not None and value % 2 == 1


def limit(m: int | None) -> int | None:
    """``limit`` of Nested.v with ``ntrips`` of ExtractNested.v: ``M mod 4`` iterations, no limit without ``M``."""
    return None if m is None else m % 4


def stack(values: Sequence[int]) -> int:
    """``nstack`` of ExtractNested.v: a scan output from its values over the iterations, in order."""
    return weighted(1, values) % MODULUS


@dataclass
class Counts:
    """What the mirror saw while running (for the coverage test)."""

    branches: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})
    iterations: dict[int, int] = field(default_factory=dict)
    ran: set[int] = field(default_factory=set)
    """The ``id`` of every body that ran."""
    condition_only: dict[int, int] = field(default_factory=dict)
    """How many Loops without ``M`` ended after each number of iterations."""
    scanned: int = 0
    """How many Loops gave a scan output whose values differ over the iterations (so their order shows)."""


class NestedInterpretation(TableInterpretation):
    """ExtractNested.v's instantiation of Nested.v's parameters, over the Python semantics.

    Table operations apply the table of Extract.v reduced modulo
    :data:`MODULUS` (their implicit inputs read as in :class:`TableInterpretation`);
    If runs the branch its first input chooses, Loop runs its body as
    ``loop_fn`` does, both by ``scope.run_nested``.
    """

    def __init__(self, counts: Counts | None = None) -> None:
        self.counts = counts

    def apply(
        self, operation: Operation, args: Sequence[int | None], scope: real_semantics.Scope[int]
    ) -> Sequence[int]:
        if operation.operator == "If":
            assert args and args[0] is not None, "the generator gives every If a condition"
            chosen = truth(args[0])
            if self.counts is not None:
                self.counts.branches[chosen] += 1
            branch = _graph(operation, "then_branch" if chosen else "else_branch")
            if self.counts is not None:
                self.counts.ran.add(id(branch))
            return scope.run_nested(branch, ())
        if operation.operator == "Loop":
            return self._loop(operation, args, scope)
        return [v % MODULUS for v in super().apply(operation, args, scope)]

    def _loop(self, operation: Operation, args: Sequence[int | None], scope: real_semantics.Scope[int]) -> list[int]:
        body = _graph(operation, "body")
        m, cond, carried = args[0], args[1], list(args[2:])
        assert None not in carried, "the generator never omits a carried value"
        n, scans, most = len(carried), [], limit(m)
        k = 0
        while (most is None or k < most) and truth(cond):
            if k == FUEL:  # ``loop_fuel`` with no fuel left: no result
                raise OutOfFuel(f"{operation.label}: more than {FUEL} iterations")
            outs = scope.run_nested(body, (k, cond, *carried))  # type: ignore[arg-type]
            cond, carried, scan = outs[0], list(outs[1 : 1 + n]), outs[1 + n :]
            scans.append(scan)
            k += 1
        nscan = max(0, len(body.outputs) - 1 - n)  # ``n_scans``: a natural number's subtraction
        stacked = [stack([it[j] if j < len(it) else UNDEF for it in scans]) for j in range(nscan)]
        if self.counts is not None:
            self.counts.iterations[k] = self.counts.iterations.get(k, 0) + 1
            if m is None:
                self.counts.condition_only[k] = self.counts.condition_only.get(k, 0) + 1
            self.counts.scanned += int(any(len(set(column)) > 1 for column in zip(*scans, strict=True)))
            if k:
                self.counts.ran.add(id(body))
        return [*carried, *stacked]  # type: ignore[list-item]


class _Bound:
    """An operation bound once for the compiled plan."""

    needs_scope = True

    def __init__(self, interpretation: NestedInterpretation, operation: Operation) -> None:
        self._interpretation = interpretation
        self._operation = operation

    def __call__(self, args: Sequence[int | None], scope: real_semantics.Scope[int]) -> tuple[int, ...]:
        return tuple(self._interpretation.apply(self._operation, args, scope))


class NestedPlanInterpretation(NestedInterpretation):
    """The nested interpretation as :class:`~sonnx.execution.plan.GraphPlan` binds operators."""

    def bind(self, operation: Operation) -> _Bound:
        return _Bound(self, operation)


def _graph(operation: Operation, name: str) -> Graph:
    attribute = operation.attribute(name)
    assert attribute is not None and isinstance(attribute.value, Graph)
    return attribute.value


# ----------------------------------------------------------------------------------------------- generation


@dataclass
class _Gen:
    """The state of one case's generation: the random source, fresh body names, GRAPH-C1 mode."""

    rng: random.Random
    fresh: Iterator[int]
    c1: bool

    def name(self) -> str:
        return f"t{next(self.fresh)}"


def generate_nested(rng: random.Random, diverging: bool = False) -> Case:
    """A random main graph whose operations include If and Loop holding bodies (depth at most 3).

    Only a case whose file-order run in the mirror ends within the fuel
    (``diverging``: one where a Loop runs out of it); others are drawn again.
    """
    for _ in range(DRAWS):
        case = _generate_nested(rng)
        if runs_out_of_fuel(case) == diverging:
            return case
    raise AssertionError(f"no case {'ran out of' if diverging else 'ended within'} the fuel in {DRAWS} draws")


def runs_out_of_fuel(case: Case) -> bool:
    """Whether the mirror's file-order run of ``case`` has a Loop that needs more than :data:`FUEL` iterations."""
    start = real_semantics.initial_state(case.graph, case.inputs, case.inits, case.outer)
    try:
        real_semantics.run(case.graph, start, NestedInterpretation(), real_semantics.FileOrder())
    except OutOfFuel:
        return True
    return False


def _generate_nested(rng: random.Random) -> Case:
    size = rng.randint(3, 8)
    names = [f"t{k}" for k in range(size)]
    gen = _Gen(rng, itertools.count(size), rng.random() < 0.4)
    inputs = rng.sample(names, rng.randint(0, min(3, size)))
    inits = rng.sample(names, rng.randint(0, 2))
    unwritten = sorted(set(names) - set(inputs) - set(inits)) if gen.c1 else None
    ops = []
    # reads favour names that have a value (given, initialized or written before), so that bodies run
    ready = [n for n in names if n in inputs or n in inits]
    for k in range(rng.randint(1, 5)):
        outs = [_main_output(rng, names, unwritten) for _ in range(rng.randint(1, 2))]
        ops.append(_operation(gen, 8 * ready + names, outs, f"n{k}", 0))
        ready += [n for n in outs if n]
    graph = make_graph("g", inputs, rng.sample(names, rng.randint(1, 3)), ops)
    given = {n: rng.randint(0, 50) for n in inputs if rng.random() < 0.9}
    outer = {n: rng.randint(0, 50) for n in sorted(graph.captures) if rng.random() < 0.8}
    # values are printed for every id below the last fresh one: a main capture may be a body's name
    return Case(graph, given, {n: rng.randint(0, 50) for n in inits}, outer, next(gen.fresh))


def _main_output(rng: random.Random, names: list[str], unwritten: list[str] | None) -> str:
    if unwritten is None:
        return "" if rng.random() < 0.1 else rng.choice(names)
    return unwritten.pop(rng.randrange(len(unwritten))) if unwritten else ""


def _operation(gen: _Gen, pool: list[str], outs: list[str], name: str, depth: int) -> Operation:
    """A table, If or Loop operation reading from ``pool``, writing ``outs``, at nesting ``depth``."""
    rng = gen.rng
    # control flow: 3 operations in 5 in the main graph, fewer below, none at the deepest level
    nesting = 0.3 if depth == 0 else 0.15 if depth < MAX_DEPTH else 0.0
    draw = rng.random()
    if draw < nesting:
        cond = rng.choice(pool)
        ins = [cond] if rng.random() < 0.7 else [cond, "" if rng.random() < 0.5 else rng.choice(pool)]
        then_b, else_b = (_body(gen, pool, 0, len(outs), depth + 1) for _ in range(2))
        return make_operation("If", ins, outs, name, then_branch=then_b, else_branch=else_b)
    if draw < 2 * nesting:
        m = "" if rng.random() < 0.25 else rng.choice(pool)
        cond = "" if rng.random() < 0.15 else rng.choice(pool)
        carried = len(outs) - rng.randint(0, 1)  # the other output, if any, is a scan output
        # without M, most bodies compute a condition that stays odd for a few iterations, then turns even
        growing = m == "" and rng.random() < 0.8
        body = _body(gen, pool, 2 + carried, 1 + len(outs), depth + 1, growing)
        return make_operation("Loop", [m, cond, *(rng.choice(pool) for _ in range(carried))], outs, name, body=body)
    ins = ["" if rng.random() < 0.15 else rng.choice(pool) for _ in range(rng.randint(0, 3))]
    attributes: dict[str, object] = {"code": rng.randint(0, 3), "nouts": len(outs)}
    attributes["param"] = rng.randint(0, 3) if attributes["code"] == 2 else rng.randint(0, 9)
    if rng.random() < 0.2:
        attributes["body"] = make_graph("captures", [], sorted({rng.choice(pool) for _ in range(2)}), [])
    return make_operation("Table", ins, outs, name, **attributes)  # type: ignore[arg-type]


def _body(gen: _Gen, visible: list[str], n_in: int, n_out: int, depth: int, growing: bool = False) -> Graph:
    """A body with ``n_in`` fresh inputs and ``n_out`` outputs defined at the end of every maximal run.

    ``growing`` (a Loop body): the first output is ``3 c + 4 + 2 p`` reduced modulo :data:`MODULUS`, ``c`` the
    incoming condition: odd while it stays below the modulus, so the loop ends after a few iterations, when the
    reduction first makes it even (or runs out of fuel, and the case is drawn again).
    """
    rng = gen.rng
    ins = [gen.name() for _ in range(n_in)]
    local, written = list(ins), set[str]()
    ops: list[Operation] = []
    for k in range(rng.randint(0, 3)):
        outs = [_body_output(gen, local, visible, written) for _ in range(rng.randint(1, 2))]
        ops.append(_operation(gen, 3 * local + visible, outs, f"b{depth}_{k}", depth))
        written.update(outs)
        local += [n for n in outs if n and n not in local]
    if rng.random() < 0.15:  # a cycle: two operations each waiting for the other's output
        a, b = gen.name(), gen.name()
        ops += [
            make_operation("Table", [a], [b], f"c{depth}a", code=0, param=1, nouts=1),
            make_operation("Table", [b], [a], f"c{depth}b", code=0, param=2, nouts=1),
        ]
    if rng.random() < 0.05:  # a read of a name nothing defines: a capture of every enclosing graph
        ops.append(make_operation("Table", [gen.name()], [gen.name()], f"u{depth}", code=1, param=0, nouts=1))
    shell = make_graph("body", ins, [], ops)
    defined = _defined_at_end(shell)
    # outputs favour the body's own names, whose values change from one Loop iteration to the next
    own = sorted(defined & shell.defined_names)
    pool = 3 * own + sorted(defined | set(visible) - shell.defined_names)
    if not pool:  # every enclosing name shadowed and nothing sure: a constant gives the outputs a value
        pool = [gen.name()]
        ops.append(make_operation("Table", [], pool, f"k{depth}", code=3, param=rng.randint(0, 9), nouts=1))
    outs = [rng.choice(pool) for _ in range(n_out)]
    if growing:
        outs[0] = gen.name()
        ops.append(
            make_operation(
                "Table", [ins[1], ins[1]], outs[:1], f"g{depth}", code=0, param=1 + 2 * rng.randint(0, 4), nouts=1
            )
        )
    return make_graph("body", ins, outs, ops)


def _body_output(gen: _Gen, local: list[str], visible: list[str], written: set[str]) -> str:
    """A fresh name mostly; else (GRAPH-C1 mode: never) a local name again, or an enclosing name (shadowing)."""
    draw = gen.rng.random()
    if draw < 0.08:
        return ""
    if draw < 0.25 and not gen.c1:
        return gen.rng.choice(local) if local else gen.name()
    if draw < 0.28:
        candidates = [n for n in visible if n not in written and n not in local]
        if candidates:
            return gen.rng.choice(candidates)
    return gen.name()


def _defined_at_end(graph: Graph) -> set[str]:
    """The names defined at the end of every maximal run: inputs, captures, and the least fixpoint's writes.

    Every operation's results fill its output mapping (table operations give
    ``nouts`` results, If and Loop as many as their bodies give), so a fired
    operation defines all its named outputs, values only grow, and every
    maximal run fires exactly the operations of the least fixpoint.
    """
    defined = set(graph.inputs) | set(graph.captures)
    changed = True
    while changed:
        changed = False
        for op in graph.operations:
            if all(n in defined for n in op.required_inputs) and not all(n in defined for n in op.output_mapping if n):
                defined.update(n for n in op.output_mapping if n)
                changed = True
    return defined


# ------------------------------------------------------------------------------------------- GRAPH-C1, encoding


def c1_everywhere(case: Case) -> bool:
    """GRAPH-C1's at-most-one-assignment half at every depth (``all_c1`` of Nested.v)."""
    return _c1(case.graph, set(case.inits)) and all(_c1(g, set()) for g, _ in bodies_with_depth(case.graph))


def _c1(graph: Graph, inits: set[str]) -> bool:
    sources = set(graph.inputs) | inits | set(graph.captures)
    writer: dict[str, int] = {}
    for i, op in enumerate(graph.operations):
        for n in op.output_mapping:
            if n and (n in sources or writer.setdefault(n, i) != i):
                return False
    return True


def bodies_with_depth(graph: Graph, depth: int = 1) -> Iterator[tuple[Graph, int]]:
    """Every If and Loop body below ``graph`` with its nesting depth (the main graph's bodies: 1)."""
    for op in graph.operations:
        if op.operator in ("If", "Loop"):
            for _, sub in op.subgraphs:
                yield sub, depth
                yield from bodies_with_depth(sub, depth + 1)


def encode_nested(case: Case) -> str:
    """The runner's nested block for ``case`` (see proofs/coq/runner/nested_driver.ml)."""
    numbers: dict[int, int] = {}
    lines = ["nested"]

    def emit(graph: Graph) -> list[str]:
        body_lines: list[str] = []
        for op in graph.operations:
            if op.operator == "If":
                for sub in (_graph(op, "then_branch"), _graph(op, "else_branch")):
                    lines.extend(_block(sub, emit(sub), numbers))
                head = f"if {numbers[id(_graph(op, 'then_branch'))]} {numbers[id(_graph(op, 'else_branch'))]}"
            elif op.operator == "Loop":
                sub = _graph(op, "body")
                lines.extend(_block(sub, emit(sub), numbers))
                head = f"loop {numbers[id(sub)]}"
            else:
                head = f"op {_int(op, 'code')} {_int(op, 'param')} {_int(op, 'nouts')}"
            body_lines.append(
                f"{head} | {_ids(op.input_mapping)} | {_ids(op.implicit_inputs)} | {_ids(op.output_mapping)}"
            )
        return body_lines

    g = case.graph
    main_ops = emit(g)
    lines += [f"inputs {_ids(g.inputs)}", f"inits {_ids(sorted(case.inits))}", f"captures {_ids(sorted(g.captures))}"]
    lines += [f"outputs {_ids(g.outputs)}", *main_ops]
    lines += [f"inp {_pairs(case.inputs)}", f"init {_pairs(case.inits)}", f"outer {_pairs(case.outer)}"]
    lines += [f"tensors {case.tensors}", "run"]
    return "\n".join(lines) + "\n"


def _block(graph: Graph, ops: list[str], numbers: dict[int, int]) -> list[str]:
    numbers[id(graph)] = len(numbers)
    head = [f"body {numbers[id(graph)]}", f"inputs {_ids(graph.inputs)}", f"captures {_ids(sorted(graph.captures))}"]
    return [*head, f"outputs {_ids(graph.outputs)}", *ops, "end"]


def nested_factory(
    make: Callable[[int], real_semantics.Scheduler], seed: int
) -> Callable[[], real_semantics.Scheduler]:
    """A factory of nested schedulers, each built from a new number (so every nested run draws its own order)."""
    numbers = itertools.count(seed)
    return lambda: make(next(numbers))
