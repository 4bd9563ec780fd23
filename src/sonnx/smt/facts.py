"""Facts the encodings are generated from, read straight off the model.

This module builds its own producer and consumer maps from the operations'
input and output mappings; it does not use the direct engine's indices or
answers, so the SMT engine stays an independent decision procedure. Only the
walk over nested graphs (:func:`sonnx.model.structure.walk_scopes`, a plain
traversal) is shared.

Per scope (graph): the operations, for each operation its required inputs
(input mapping without omitted entries, then the names its nested graphs
capture), every output-mapping entry of every name, the graph inputs, the
initialized tensors, and for a nested graph the names an enclosing graph
defines (nearest enclosing scope).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from ..model.graph import Graph, Model
from ..model.structure import walk_scopes


@dataclass
class ScopeFacts:
    index: int
    path: str
    graph: Graph
    parent: int
    req: List[Tuple[str, ...]]
    outs: List[Tuple[str, ...]]
    entries: Dict[str, List[Tuple[int, int]]]
    """name -> every (operation, output position) assigning it, in order."""
    inputs: Tuple[str, ...]
    initialized: frozenset[str]
    outer: Dict[str, int] = field(default_factory=dict)
    """Names this scope defines or captures that an enclosing scope defines -> nearest such scope."""
    _succ: List[List[Tuple[int, str]]] | None = None
    _edges: List[Tuple[int, int, str]] | None = None
    _prods: Dict[str, List[int]] | None = None

    @property
    def n(self) -> int:
        return len(self.req)

    def defines(self, name: str) -> bool:
        return name in self.entries or name in self.initialized or name in self.inputs_set

    @property
    def inputs_set(self) -> frozenset[str]:
        return frozenset(self.inputs)

    def producers(self, name: str) -> List[int]:
        return list(dict.fromkeys(j for j, _ in self.entries.get(name, ())))

    def producer_lists(self) -> Dict[str, List[int]]:
        """:meth:`producers` of every assigned name (cached)."""
        if self._prods is None:
            self._prods = {
                t: [e[0][0]] if len(e) == 1 else list(dict.fromkeys(p for p, _ in e)) for t, e in self.entries.items()
            }
        return self._prods

    def edges(self) -> List[Tuple[int, int, str]]:
        """Dependency edges (producer, consumer, tensor), one per producer of each required input (cached)."""
        if self._edges is not None:
            return self._edges
        out: List[Tuple[int, int, str]] = []
        entries = self.entries
        for j, names in enumerate(self.req):
            for t in names:
                e = entries.get(t)
                if e is not None:
                    if len(e) == 1:
                        out.append((e[0][0], j, t))
                    else:
                        out.extend((p, j, t) for p in dict.fromkeys(p for p, _ in e))
        self._edges = out
        return out

    def successors(self) -> List[List[Tuple[int, str]]]:
        if self._succ is None:
            succ: List[List[Tuple[int, str]]] = [[] for _ in range(self.n)]
            for a, b, t in self.edges():
                succ[a].append((b, t))
            self._succ = succ
        return self._succ

    def seeded(self) -> frozenset[str]:
        """Names with a value before any operation fires: inputs, initializers, outer definitions captured."""
        cap = self.graph.captures if self.parent >= 0 else frozenset()
        return self.inputs_set | self.initialized | frozenset(c for c in cap if c in self.outer)


def _required(op: object) -> Tuple[str, ...]:
    if op[5]:  # type: ignore[index]
        return op.required_inputs  # type: ignore[attr-defined]
    return tuple(n for n in op[3] if n)  # type: ignore[index]


def scope_facts(index: int, path: str, graph: Graph, parent: int) -> ScopeFacts:
    ops = graph.operations
    req = [_required(op) for op in ops]
    outs = [op[4] for op in ops]
    entries: Dict[str, List[Tuple[int, int]]] = {}
    for j, os_ in enumerate(outs):
        for k, o in enumerate(os_):
            if o:
                lst = entries.get(o)
                if lst is None:
                    entries[o] = [(j, k)]
                else:
                    lst.append((j, k))
    init = frozenset(n for n, t in graph.tensors.items() if t.initial_value is not None)
    return ScopeFacts(index, path, graph, parent, req, outs, entries, graph.inputs, init)


def model_facts(model: Model) -> List[ScopeFacts]:
    """Facts of every scope of ``model``, main graph first, with the outer definitions filled in."""
    scopes = walk_scopes(model.graph)
    facts = [scope_facts(i, s.path, s.graph, s.parent) for i, s in enumerate(scopes)]
    if len(facts) == 1:
        return facts
    children: List[List[int]] = [[] for _ in facts]
    for f in facts:
        if f.parent >= 0:
            children[f.parent].append(f.index)
    visible: Dict[str, List[int]] = {}

    def own(f: ScopeFacts) -> List[str]:
        return sorted(set(f.entries) | f.inputs_set | f.initialized)

    names0 = own(facts[0])
    for nm in names0:
        visible[nm] = [0]
    stack: List[Tuple[int, bool]] = [(c, True) for c in reversed(children[0])]
    pushed: Dict[int, List[str]] = {}
    while stack:
        i, entering = stack.pop()
        if not entering:
            for nm in pushed.pop(i):
                lst = visible[nm]
                lst.pop()
                if not lst:
                    del visible[nm]
            continue
        f = facts[i]
        names = own(f)
        for nm in set(names) | set(f.graph.captures):
            d = visible.get(nm)
            if d:
                f.outer[nm] = d[-1]
        for nm in names:
            visible.setdefault(nm, []).append(i)
        pushed[i] = names
        stack.append((i, False))
        stack.extend((c, True) for c in reversed(children[i]))
    return facts


def total_operations(facts: Sequence[ScopeFacts]) -> int:
    return sum(f.n for f in facts)
