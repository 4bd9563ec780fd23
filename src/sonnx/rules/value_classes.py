"""The three classes of tensors of the operator layer: constant, shape-only, value-dependent.

Spec section 4 of spec/operators.rst (rule OP-VALUE-SHAPES). A forward
dataflow analysis over every graph of a model gives each tensor two facts:

* the *class* of its values: ``CONST`` (a function of the stored values
  alone), ``SHAPE`` (a function of stored values and of the shapes of the
  graph inputs, such as the output of ``Shape`` or ``Size``) or ``VALUE`` (it
  may change when the elements of a graph input change);
* whether its *shape* may depend on the values of the graph inputs.

Which inputs of an operator fix its output shapes through their values is
data, the table ``sonnx/data/shape_inputs.json``; an operator that is not in
the table is not decided. Control-flow operators are analysed through their
nested graphs (see :func:`_loop`, :func:`_if`). The analysis only reads the
graph's structure, the model's opset imports and that table: it rests on no
declared shape.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..base.errors import ToolError
from ..model.graph import Graph, Model, Operation
from ..model.scopes import child_segments, scope_path
from ..model.structure import walk_scopes
from .shape_inputs import shape_tables

CONST, SHAPE, VALUE = 0, 1, 2
CLASS_NAMES = ("constant", "shape-only", "value-dependent")
RANDOM = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                    "Bernoulli"})
"""Generators whose output elements are drawn at run time: their values are never constant or shape-only."""
EXTRA_VISITS = 100_000
"""The operation visits one analysis may make beyond three per operation of the model: a loop nested in loops is
analysed again for each pass of its holders, so the bound keeps a check finite; past it the rule is UNKNOWN."""
RANK_ONLY = frozenset({"Shape", "Size"})
"""Operators whose output shape is fixed by the input's rank alone, and whose values are its shape."""


@dataclass
class Facts:
    """What the analysis knows of the tensors of one graph; names it does not define are looked up outside."""

    parent: Facts | None
    cls: dict[str, int] = field(default_factory=dict)
    dyn: dict[str, bool] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    """For a value-dependent tensor: the tensor (or ``<what>``) it inherits its class from; absent for a root."""

    def find(self, name: str) -> Facts | None:
        f: Facts | None = self
        while f is not None and name not in f.cls:
            f = f.parent
        return f

    def set(self, name: str, cls: int, dyn: bool, source: str | None = None) -> None:
        self.cls[name], self.dyn[name] = cls, dyn
        if source is not None:
            self.source[name] = source

    def chain(self, name: str, limit: int = 50) -> list[str]:
        """The tensors from ``name`` back to the graph input (or random draw) its value-dependence comes from."""
        out = [name]
        while len(out) < limit:
            f = self.find(out[-1])
            nxt = None if f is None else f.source.get(out[-1])
            if nxt is None or nxt in out:
                break
            out.append(nxt)
        return out


class Where(NamedTuple):
    """A graph's place in the model, named as witnesses name scopes (a bounded path, :mod:`sonnx.model.scopes`)."""

    segments: tuple[str, ...]
    depth: int

    @property
    def path(self) -> str:
        return scope_path(self.segments, self.depth)

    def child(self, op: Operation, attr: str) -> Where:
        return Where(child_segments(self.segments, f"{op.label}.{attr}"), self.depth + 1)


@dataclass
class Analysis:
    """The result over a whole model: the operations where a shape comes to depend on values, and open cases."""

    model: Model
    branches_agree: Callable[[str, int], tuple[bool | None, str]] = lambda scope, j: (
        None, "the branches' shapes are not compared")
    """For the ``If`` at (scope path, index): True when both branches give every output one static shape, False
    when they give an output two different static shapes, None when neither is established, with the words of the
    answer (the rule gives this from onnx's derived types)."""
    findings: list[dict[str, Any]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    visits: list[int] = field(default_factory=lambda: [0, EXTRA_VISITS])
    """Operations visited so far and the most allowed, shared with the scratch analyses of loop bodies."""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASS_NAMES, 0))

    def opset(self, domain: str) -> int:
        imports = self.model.opset_imports
        v = imports.get(domain)
        if v is None and domain in ("", "ai.onnx"):
            v = imports.get("") or imports.get("ai.onnx")
        return int(v) if v is not None else 0

    def open(self, why: str) -> None:
        self.reasons[why] = self.reasons.get(why, 0) + 1

    def found(self, scope: Where, j: int, op: Operation, cause: str, tensor: str, facts: Facts) -> None:
        self.findings.append({"scope": scope.path, "index": j, "operation": op.label, "cause": cause,
                              "tensor": tensor, "chain": facts.chain(tensor)})


def analyse(model: Model, branches_agree: Callable[[str, int], tuple[bool | None, str]] | None = None) -> Analysis:
    """Classify every tensor of ``model`` and collect the operations whose output shapes depend on values."""
    a = Analysis(model) if branches_agree is None else Analysis(model, branches_agree)
    facts = Facts(None)
    g = model.graph
    a.visits[1] = EXTRA_VISITS + 3 * sum(len(sc.graph.operations) for sc in walk_scopes(g))
    for name, t in g.tensors.items():
        if t.initial_value is not None and name not in g.inputs:
            facts.set(name, CONST, False)
    for name in g.inputs:  # an input with an initial value can still be fed at run time
        facts.set(name, VALUE, False)
    drive(graph_pass(a, g, facts, Where((g.name or "main",), 0)))
    for f_cls in facts.cls.values():
        a.counts[CLASS_NAMES[f_cls]] += 1
    return a


Step = Generator[Any, Any, Any]
"""A step of the analysis: it yields the steps it needs run (a nested graph's pass) and receives their results."""


def drive(root: Step) -> Any:
    """Run ``root`` and every step it asks for on an explicit stack: the nesting depth of graphs costs no
    Python recursion."""
    stack, value = [root], None
    while True:
        try:
            wanted = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            value = done.value
            continue
        stack.append(wanted)
        value = None


def graph_pass(a: Analysis, g: Graph, facts: Facts, scope: Where) -> Step:
    """Classify the operations of ``g`` in a dependency order (its inputs already classified in ``facts``).

    The order is Kahn's: an operation is taken once every tensor it reads is classified, whatever the file order.
    """
    for name, t in g.tensors.items():
        if t.initial_value is not None and name not in facts.cls:
            facts.set(name, CONST, False)
    waiting: list[int] = []
    readers: dict[str, list[int]] = {}
    for j, op in enumerate(g.operations):
        missing = {n for n in op.required_inputs if facts.find(n) is None}
        waiting.append(len(missing))
        for n in missing:
            readers.setdefault(n, []).append(j)
    ready = [j for j, w in enumerate(waiting) if w == 0]
    done = 0
    while ready:
        j = ready.pop()
        op = g.operations[j]
        done += 1
        a.visits[0] += 1
        if a.visits[0] > a.visits[1]:
            raise ToolError(f"the analysis visited more than {a.visits[1]:,} operations (loops nested in loops)")
        if op.subgraphs and op.domain in ("", "ai.onnx") and op.operator in NESTED:
            yield NESTED[op.operator](a, j, op, facts, scope)
        else:
            operation(a, g, j, op, facts, scope)
        for o in dict.fromkeys(op.output_mapping):
            for k in readers.pop(o, ()) if o else ():
                waiting[k] -= 1
                if waiting[k] == 0:
                    ready.append(k)
    if done < len(g.operations):  # not decided: classified low so that no finding rests on them
        a.open(f"operation(s) in {scope.path} whose inputs have no producer or lie on a cycle")
        for j, w in enumerate(waiting):
            for o in g.operations[j].output_mapping if w else ():
                if o and o not in facts.cls:
                    facts.set(o, CONST, False)


def _class_of(facts: Facts, names: tuple[str, ...] | list[str]) -> tuple[int, str | None, bool]:
    """The highest class among ``names``, the first name of that class, and whether any of their shapes is dynamic."""
    best, who, dyn = CONST, None, False
    for n in names:
        f = facts.find(n)
        if f is None:
            continue
        c = f.cls[n]
        if c > best or (who is None and c == best):
            best, who = c, n
        dyn = dyn or f.dyn[n]
    return best, who, dyn


def operation(a: Analysis, g: Graph, j: int, op: Operation, facts: Facts, scope: Where) -> None:
    """Classify the outputs of one operation and record it when it makes a shape depend on values."""
    outs = [o for o in op.output_mapping if o]
    if op.subgraphs:  # not one of NESTED: not decided; a low class invents no finding, the reason keeps PROVED away
        a.open(f"{op.operator} holds graphs this rule cannot analyse")
        for o in outs:
            facts.set(o, CONST, False)
        return
    ins = [n for n in op.input_mapping if n]
    if op.operator == "Constant" and op.domain in ("", "ai.onnx"):
        for o in outs:
            facts.set(o, CONST, False)
        return
    if op.operator in RANK_ONLY and op.domain in ("", "ai.onnx"):
        _, who, dyn = _class_of(facts, ins)
        for o in outs:
            facts.set(o, VALUE if dyn else SHAPE, False, who if dyn else None)
        return
    cls, who, dyn = _class_of(facts, ins)
    if op.operator in RANDOM and op.domain in ("", "ai.onnx"):
        cls, who = VALUE, f"<random draw of {op.label}>"
    table = shape_tables().get("" if op.domain == "ai.onnx" else op.domain)
    positions = None if table is None else table.positions(op.operator, a.opset(op.domain))
    if positions is None:
        a.open(f"operator {op.domain or 'ai.onnx'}.{op.operator} is not in the table of shape inputs")
    for p in positions or ():
        if p < len(op.input_mapping) and op.input_mapping[p]:
            name = op.input_mapping[p]
            f = facts.find(name)
            if f is not None and f.cls[name] == VALUE:
                a.found(scope, j, op, f"input {p} ({name!r}) fixes the output shape and is value-dependent", name,
                        facts)
                dyn = True
    for o in outs:
        facts.set(o, cls, dyn, who if cls == VALUE else None)



def _body(a: Analysis, body: Graph, outer: Facts, scope: Where, given: list[tuple[int, str | None, bool]],
          final: bool) -> Step:
    """One pass over a nested graph whose inputs have the classes ``given``; findings kept only when ``final``.

    Its result is the nested graph's facts."""
    bf = Facts(outer)
    for name, (c, who, d) in zip(body.inputs, given, strict=False):
        bf.set(name, c, d, who if c == VALUE else None)
    yield graph_pass(a if final else Analysis(a.model, a.branches_agree, visits=a.visits), body, bf, scope)
    return bf


def _out(bf: Facts, name: str) -> tuple[int, str | None, bool]:
    f = bf.find(name)
    if f is None:
        return CONST, None, False
    return f.cls[name], name, f.dyn[name]


def _upper(x: tuple[int, str | None, bool], y: tuple[int, str | None, bool]) -> tuple[int, str | None, bool]:
    c, who = (y[0], y[1]) if y[0] > x[0] else (x[0], x[1])
    return c, who, x[2] or y[2]


Cls = tuple[int, str | None, bool]


def _fixpoint(a: Analysis, body: Graph, outer: Facts, scope: Where, head: list[Cls], carried: list[Cls],
              back: int, tail: list[Cls] | None = None) -> Step:
    """Analyse a loop body until the classes of its carried inputs stop rising (each can rise at most twice).

    ``head`` and ``tail`` are the classes of the body inputs before and after the carried ones; the carried
    inputs take the upper class of their initial values and of the body outputs from position ``back`` on.
    Its result is the body's facts in the last pass and the carried classes.
    """
    rest = tail or []
    for _ in range(3 * len(carried) + 2):
        bf = yield _body(a, body, outer, scope, head + carried + rest, final=False)
        nxt = [_upper(c, _out(bf, body.outputs[back + k])) if back + k < len(body.outputs) else c
               for k, c in enumerate(carried)]
        if [(c, d) for c, _, d in nxt] == [(c, d) for c, _, d in carried]:
            break
        carried = nxt
    bf = yield _body(a, body, outer, scope, head + carried + rest, final=True)
    return bf, carried


def _loop(a: Analysis, j: int, op: Operation, facts: Facts, scope: Where) -> Step:
    """Loop: the number of iterations is value-dependent when its trip count or a condition is (spec 4.1)."""
    body = op.attribute("body")
    if body is None or body.type != "GRAPH":
        a.open("Loop without a body graph")
        return
    g: Graph = body.value
    sc = scope.child(op, "body")
    ins = [*op.input_mapping, "", ""]
    trip = _class_of(facts, [n for n in ins[:2] if n])
    cond = _class_of(facts, [ins[1]] if ins[1] else [])
    carried = [_class_of(facts, [n]) if n else (CONST, None, False) for n in op.input_mapping[2:]]
    for _ in range(4):  # the condition computed by the body feeds back into the number of iterations
        head = [(trip[0], trip[1], False), _upper(cond, trip)]
        bf, carried = yield _fixpoint(a, g, facts, sc, head, carried, 1)
        stop = _out(bf, g.outputs[0]) if g.outputs else (CONST, None, False)
        grown = _upper(trip, stop)
        if grown[0] == trip[0]:
            break
        trip = grown
    if trip[0] == VALUE and trip[1] is not None:
        a.found(scope, j, op, "its number of iterations is value-dependent", trip[1], bf)
    n_carried = len(carried)
    for k, o in enumerate(op.output_mapping):
        if not o:
            continue
        if k < n_carried:
            c, who, d = carried[k]
        else:
            c, who, d = _upper(_out(bf, g.outputs[1 + k]) if 1 + k < len(g.outputs) else (CONST, None, False), trip)
            d = d or trip[0] == VALUE
        facts.set(o, c, d, who if c == VALUE else None)


def _if(a: Analysis, j: int, op: Operation, facts: Facts, scope: Where) -> Step:
    """If: each branch is analysed; under a value-dependent condition both must give the same static shapes."""
    cond = _class_of(facts, [n for n in op.input_mapping[:1] if n])
    outs = [cond] * len(op.output_mapping)
    for attr, sub in op.subgraphs:
        bf = yield _body(a, sub, facts, scope.child(op, attr), [], final=True)
        outs = [_upper(c, _out(bf, sub.outputs[k])) if k < len(sub.outputs) else c for k, c in enumerate(outs)]
    same, why = a.branches_agree(scope.path, j) if cond[0] == VALUE and any(op.output_mapping) else (True, "")
    if same is None:
        a.open(f"an If whose condition is value-dependent, and {why}")
    elif not same and cond[1] is not None:
        a.found(scope, j, op, f"its value-dependent condition chooses between {why}", cond[1], facts)
        outs = [(c, who, True) for c, who, _ in outs]
    for o, (c, who, d) in zip(op.output_mapping, outs, strict=False):
        if o:
            facts.set(o, c, d, who if c == VALUE else None)


def _scan(a: Analysis, j: int, op: Operation, facts: Facts, scope: Where) -> Step:
    """Scan: iterates over an axis of its scan inputs, so the number of iterations is shape-only."""
    body, num = op.attribute("body"), op.attribute("num_scan_inputs")
    if body is None or num is None or a.opset(op.domain) < 9:
        a.open("a Scan of opset 8 or without body/num_scan_inputs")
        return
    g: Graph = body.value
    ins = list(op.input_mapping)
    n_state = len(ins) - int(num.value)
    state = [_class_of(facts, [n]) if n else (CONST, None, False) for n in ins[:n_state]]
    slices = [_class_of(facts, [n]) if n else (CONST, None, False) for n in ins[n_state:]]
    bf, state = yield _fixpoint(a, g, facts, scope.child(op, "body"), [], state, 0, slices)
    for k, o in enumerate(op.output_mapping):
        if o:
            none: Cls = (CONST, None, False)
            c, who, d = state[k] if k < n_state else _out(bf, g.outputs[k]) if k < len(g.outputs) else none
            facts.set(o, c, d, who if c == VALUE else None)


def _sequence_map(a: Analysis, j: int, op: Operation, facts: Facts, scope: Where) -> Step:
    """SequenceMap: the body runs once per element, so the outputs' lengths are those of the input sequence."""
    body = op.attribute("body")
    if body is None:
        a.open("SequenceMap without a body graph")
        return
    g: Graph = body.value
    given = [_class_of(facts, [n]) if n else (CONST, None, False) for n in op.input_mapping]
    bf = yield _body(a, g, facts, scope.child(op, "body"), given, final=True)
    for k, o in enumerate(op.output_mapping):
        if o:
            c, who, d = _out(bf, g.outputs[k]) if k < len(g.outputs) else (CONST, None, False)
            c0, who0, d0 = _class_of(facts, [n for n in op.input_mapping if n])
            c, who, d = _upper((c, who, d), (c0, who0, d0))
            facts.set(o, c, d, who if c == VALUE else None)


NESTED: dict[str, Callable[[Analysis, int, Operation, Facts, Where], Step]] = {
    "If": _if, "Loop": _loop, "Scan": _scan, "SequenceMap": _sequence_map}
