"""The raw facts of a model: the only input of every SMT obligation (spec section 1, rules of section 4).

Python's part of the SMT engine is to list these facts; every rule is a formula
over them and the solver does the joins (which operation writes the tensor
another one reads, which tensors a set contains...). The facts are read straight
off the model's mappings; nothing here uses the direct engine's indices or
answers, and nothing is derived beyond giving things numbers.

Ids. Every operation of every graph gets a global integer id (the operations of
one graph are numbered contiguously from ``op_base``, in storage order); every
name of every graph gets a global tensor id (one id per graph and name: the
same name in a nested graph is another tensor, bound to the outer one by a
capture or shadow fact below).

Facts of one graph (``s`` its scope index):

* read ``(o, k, t)``: operation ``o`` reads tensor ``t`` at input position
  ``k`` (omitted optional inputs are not facts); the names a nested graph of
  ``o`` captures are implicit inputs of ``o`` (spec 1.4), at positions after the
  explicit ones, in name order;
* write ``(o, k, t)``: operation ``o`` writes ``t`` at output position ``k``;
* graph input ``(k, t)`` and graph output ``(k, t)`` at position ``k``;
* initializer ``t`` (a tensor with an initial value);
* capture ``(t, u)``: the nested graph reads ``t`` without defining it, and
  ``u`` is the tensor of the nearest enclosing graph that defines the name;
* shadow ``(t, u)``: the nested graph defines ``t`` (input, initializer or
  output) and ``u`` is the nearest enclosing graph's definition of the name;
* loop body: the graph is the ``body`` attribute of a ``Loop`` operation of
  the default domain (GRAPH-C2 exempts its first two inputs).

The walk over nested graphs is :func:`sonnx.model.structure.walk_scopes`, a
plain traversal shared with the direct engine.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..model.graph import Graph, Model
from ..model.scopes import walk_visible
from ..model.structure import walk_scopes

Fact = tuple[int, int, int]


@dataclass
class ScopeFacts:
    """The raw facts of one graph (scope), with global ids."""

    index: int
    path: str
    graph: Graph
    parent: int
    op_base: int
    t_base: int
    names: list[str] = field(default_factory=list)
    """Local tensor number -> name (global id = ``t_base`` + local number)."""
    tid: dict[str, int] = field(default_factory=dict)
    """Name -> global tensor id."""
    rd_ptr: array = field(default_factory=lambda: array("i", [0]))
    rd_o: array = field(default_factory=lambda: array("i"))
    rd_k: array = field(default_factory=lambda: array("i"))
    rd_t: array = field(default_factory=lambda: array("i"))
    wr_ptr: array = field(default_factory=lambda: array("i", [0]))
    wr_o: array = field(default_factory=lambda: array("i"))
    wr_k: array = field(default_factory=lambda: array("i"))
    wr_t: array = field(default_factory=lambda: array("i"))
    inputs: list[tuple[int, int]] = field(default_factory=list)
    outputs: list[tuple[int, int]] = field(default_factory=list)
    initialized: list[int] = field(default_factory=list)
    captures: list[tuple[int, int]] = field(default_factory=list)
    shadows: list[tuple[int, int]] = field(default_factory=list)
    loop_body: bool = False
    cache: dict[str, object] = field(default_factory=dict)
    """Untrusted helpers computed once per run (see :func:`.certify.index_of`)."""

    @property
    def n(self) -> int:
        return len(self.rd_ptr) - 1

    def id_of(self, name: str) -> int:
        t = self.tid.get(name)
        if t is None:
            t = self.tid[name] = self.t_base + len(self.names)
            self.names.append(name)
        return t

    def name(self, t: int) -> str:
        return self.names[t - self.t_base]

    def reads(self) -> Iterator[Fact]:
        return zip(self.rd_o, self.rd_k, self.rd_t, strict=True)

    def writes(self) -> Iterator[Fact]:
        return zip(self.wr_o, self.wr_k, self.wr_t, strict=True)

    def reads_of(self, j: int) -> list[Fact]:
        """Read facts of local operation ``j``."""
        a, b = self.rd_ptr[j], self.rd_ptr[j + 1]
        return list(zip(self.rd_o[a:b], self.rd_k[a:b], self.rd_t[a:b], strict=True))

    @property
    def n_tensors(self) -> int:
        return len(self.names)


def _scope_facts(index: int, path: str, graph: Graph, parent: int, op_base: int, t_base: int) -> ScopeFacts:
    f = ScopeFacts(index, path, graph, parent, op_base, t_base)
    idf = f.id_of
    for k, nm in enumerate(graph.inputs):
        f.inputs.append((k, idf(nm)))
    f.initialized = [idf(nm) for nm, t in sorted(graph.tensors.items()) if t.initial_value is not None]
    rd_o, rd_k, rd_t, rd_ptr = f.rd_o, f.rd_k, f.rd_t, f.rd_ptr
    wr_o, wr_k, wr_t, wr_ptr = f.wr_o, f.wr_k, f.wr_t, f.wr_ptr
    # id_of inlined for the reads (a million operations make two million of them).
    tid_get, tid, names, t_base = f.tid.get, f.tid, f.names, f.t_base
    o = op_base
    for op in graph.operations:
        ins = op[3]
        for k, nm in enumerate(ins):
            if nm:
                t = tid_get(nm)
                if t is None:
                    t = tid[nm] = t_base + len(names)
                    names.append(nm)
                rd_o.append(o)
                rd_k.append(k)
                rd_t.append(t)
        if op[5]:  # attributes: nested graphs give implicit inputs
            for i, nm in enumerate(op.implicit_inputs):
                rd_o.append(o)
                rd_k.append(len(ins) + i)
                rd_t.append(idf(nm))
        rd_ptr.append(len(rd_o))
        for k, nm in enumerate(op[4]):
            if nm:
                wr_o.append(o)
                wr_k.append(k)
                wr_t.append(idf(nm))
        wr_ptr.append(len(wr_o))
        o += 1
    for k, nm in enumerate(graph.outputs):
        f.outputs.append((k, idf(nm)))
    return f


def _loop_bodies(graphs: Sequence[Graph]) -> set[int]:
    bodies: set[int] = set()
    for g in graphs:
        for op in g.operations:
            if op.attributes and op.operator == "Loop" and op.domain == "":
                a = op.attribute("body")
                if a is not None and a.type == "GRAPH":
                    bodies.add(id(a.value))
    return bodies


def model_facts(model: Model) -> list[ScopeFacts]:
    """Facts of every graph of ``model``, main graph first (pre-order), with the bindings across graphs."""
    scopes = walk_scopes(model.graph)
    facts: list[ScopeFacts] = []
    op_base = t_base = 0
    for i, s in enumerate(scopes):
        f = _scope_facts(i, s.path, s.graph, s.parent, op_base, t_base)
        facts.append(f)
        op_base += f.n
        t_base += f.n_tensors
    if len(facts) > 1:
        _bind(facts)
        loops = _loop_bodies([f.graph for f in facts])
        for f in facts:
            f.loop_body = f.parent >= 0 and id(f.graph) in loops
    return facts


def _defined(f: ScopeFacts) -> list[str]:
    names = {f.name(t) for t in f.wr_t}
    names.update(f.name(t) for _, t in f.inputs)
    names.update(f.name(t) for t in f.initialized)
    return sorted(names)


def _bind(facts: list[ScopeFacts]) -> None:
    """Capture and shadow facts: for each nested graph, the nearest enclosing definition of its names."""
    visible: dict[str, list[int]] = {nm: [0] for nm in _defined(facts[0])}

    def enter(i: int) -> list[str]:
        f = facts[i]
        own = _defined(f)
        for nm in sorted(f.graph.captures):
            d = visible.get(nm)
            if d:
                f.captures.append((f.tid[nm], facts[d[-1]].tid[nm]))
        for nm in own:
            d = visible.get(nm)
            if d:
                f.shadows.append((f.tid[nm], facts[d[-1]].tid[nm]))
        return own

    walk_visible([f.parent for f in facts], visible, enter)


def total_operations(facts: Sequence[ScopeFacts]) -> int:
    return sum(f.n for f in facts)


def scope_of_tensor(facts: Sequence[ScopeFacts], t: int) -> ScopeFacts:
    """The scope holding global tensor id ``t`` (tensors of a scope are contiguous)."""
    return facts[max(0, bisect_right(facts, t, key=lambda f: f.t_base) - 1)]
