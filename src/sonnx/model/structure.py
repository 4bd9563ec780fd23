"""Structural analyses of SONNX graphs, computed once per graph and shared by the rules.

Everything here works on one :class:`~sonnx.model.graph.Graph` at a time and
is cached in :attr:`sonnx.rules.base.CheckContext.cache`, so the producer map,
the dependency edges or the topological analysis of a graph are built once per
check run whatever the number of rules that read them.

The dependency relation of a graph (used by the cycle, completeness and dead
node rules) has an edge A -> B when a tensor of A's output mapping is one of
B's required inputs (its input mapping plus the implicit inputs that its nested
graphs capture). Edges are kept per *occurrence*: B consuming ``x`` twice gives
two edges, and a tensor with two producers gives one edge from each.

Scale: graphs of a million operations and cycles of a hundred thousand are
ordinary inputs, and graphs nest thousands deep. Nothing here recurses; name
resolution is one dictionary pass; the propagations (topological peeling,
reachability) run level by level with NumPy while the frontier is wide and
switch to a plain loop over flat arrays while it is narrow (a chain).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat
from typing import Any, NamedTuple

import numpy as np

from ..base.caching import cached
from .graph import Graph
from .index import (
    NO_PRODUCER,
    GraphIndex,
    attribute_ops,
    index,
    operations_with_attributes,
    topology,
)
from .propagate import reach
from .scopes import child_segments, scope_path, walk_visible


class Scope(NamedTuple):
    """One graph of the model: its scope path, the graph, and the index of the enclosing scope (-1 for main)."""

    path: str
    graph: Graph
    parent: int


def walk_scopes(
    root: Graph, attr_ops: Callable[[Graph], list[int]] = lambda g: operations_with_attributes(g.operations)
) -> list[Scope]:
    """Every graph under ``root`` in pre-order, with the same paths as :meth:`Graph.nested`."""
    out: list[Scope] = []
    stack: list[tuple[tuple[str, ...], int, Graph, int]] = [((root.name or "main",), 0, root, -1)]
    while stack:
        segments, depth, g, parent = stack.pop()
        me = len(out)
        out.append(Scope(scope_path(segments, depth), g, parent))
        children: list[tuple[tuple[str, ...], int, Graph, int]] = []
        ops = g.operations
        for j in attr_ops(g):
            op = ops[j]
            children.extend(
                (child_segments(segments, f"{op.label}.{attr}"), depth + 1, sub, me) for attr, sub in op.subgraphs
            )
        stack.extend(reversed(children))
    return out


def scopes(ctx: Any) -> list[Scope]:
    """The scopes of ``ctx.model`` (cached)."""
    return cached(
        ctx.cache, ("structure.scopes",), lambda: walk_scopes(ctx.model.graph, lambda g: attribute_ops(ctx, g))
    )


def outer_definers(ctx: Any) -> list[dict[str, int]]:
    """For each scope, the names it defines or captures that an enclosing scope defines.

    ``result[i][name]`` is the index of the nearest enclosing scope that
    defines ``name`` (a graph input, an initializer or an operation output of
    that graph). Names of the main graph are looked up in its index, so a
    large main graph is never copied; nested levels are tracked with an
    explicit stack (no recursion, however deep the nesting).
    """

    def build() -> list[dict[str, int]]:
        sc = scopes(ctx)
        result: list[dict[str, int]] = [{} for _ in sc]
        if len(sc) == 1:
            return result
        main = index(ctx, sc[0].graph)
        visible: dict[str, list[int]] = {}

        def enter(i: int) -> list[str]:
            ix = index(ctx, sc[i].graph)
            names = sorted(set(ix.prod) | ix.input_set | ix.initialized)
            res = result[i]
            for nm in chain(names, sorted(sc[i].graph.captures)):
                definers = visible.get(nm)
                if definers:
                    res[nm] = definers[-1]
                elif main.defines(nm):
                    res[nm] = 0
            return names

        walk_visible([s.parent for s in sc], visible, enter)
        return result

    return cached(ctx.cache, ("structure.outer",), build)


class Definedness:
    """Which operations fire and which tensors have a value at the end of execution (one scope).

    Initially defined: the graph inputs, the initialized tensors and, in a
    nested graph, the captured names that an enclosing graph defines. An
    operation fires when all its required inputs are defined; firing defines
    its outputs; this runs to the least fixpoint.
    """

    def __init__(self, ix: GraphIndex, fired: np.ndarray, initial: frozenset[str], extra: set[str] | None):
        self.ix = ix
        self.fired = fired
        self.initial = initial
        self._all = extra

    def defined(self, name: str) -> bool:
        if self._all is not None:
            return name in self._all
        if name in self.initial:
            return True
        j = self.ix.prod.get(name)
        return j is not None and bool(self.fired[j])

    def undefined(self, names: Sequence[str]) -> list[str]:
        """The names of ``names``, in order, that :meth:`defined` rejects; looked up in one pass each, so that a
        graph with hundreds of thousands of outputs costs no Python call per name."""
        if self._all is not None:
            return [nm for nm in names if nm not in self._all]
        n = len(names)
        initial = np.fromiter(map(self.initial.__contains__, names), np.bool_, n)
        j = np.fromiter(map(self.ix.prod.get, names, repeat(NO_PRODUCER)), np.intp, n)
        produced = j >= 0
        initial[produced] |= self.fired[j[produced]]
        return [names[k] for k in np.flatnonzero(~initial).tolist()]


def definedness(ctx: Any, scope: int) -> Definedness:
    """The definedness fixpoint of scope number ``scope`` (cached)."""

    def build() -> Definedness:
        sc = scopes(ctx)[scope]
        ix = index(ctx, sc.graph)
        outer = outer_definers(ctx)[scope]
        captured = frozenset(c for c in sc.graph.captures if c in outer) if sc.parent >= 0 else frozenset()
        initial = ix.input_set | ix.initialized | captured
        if ix.multi or any(nm in ix.prod for nm in chain(ix.input_set, ix.initialized)):
            return _definedness_general(ix, initial)
        # Single assignment holds: an operation fires exactly when it is not on or
        # after a cycle and not downstream of a tensor that nothing defines.
        fired = topology(ctx, sc.graph).done.copy()
        free = np.flatnonzero(ix.code == NO_PRODUCER)
        roots = [k for k, nm in zip(free.tolist(), ix.names_of(free), strict=True) if nm not in captured]
        if roots:
            sptr, sdst, _ = ix.succ()
            fired &= ~reach(ix.n, sptr, sdst, ix.in_op[np.array(roots, np.intp)])
        return Definedness(ix, fired, initial, None)

    return cached(ctx.cache, ("structure.defined", scope), build)


def _definedness_general(ix: GraphIndex, initial: frozenset[str]) -> Definedness:
    """Worklist fixpoint by names, for graphs where single assignment fails."""
    defined = set(initial)
    fired = np.zeros(ix.n, np.bool_)
    outs = ix.outs
    for j, _ in firings(ix.req, defined, lambda j: outs[j]):
        fired[j] = True
    return Definedness(ix, fired, initial, defined)


def firings(
    requires: Iterable[Iterable[str]], defined: set[str], outputs: Callable[[int], Iterable[str]]
) -> Iterator[tuple[int, list[int]]]:
    """Kahn's algorithm on the counts of missing inputs: the operations in a firing order, as each fires.

    ``requires[j]`` names the tensors operation ``j`` needs (empty names are
    ignored), ``defined`` the tensors with a value (grown in place as
    operations fire), ``outputs(j)`` what operation ``j`` assigns. Each step
    gives the operation firing and the list of the other operations ready at
    that moment (read it before the next step: it changes). The operations
    never given are those that never fire (the least fixpoint of definedness).
    """
    waiting: dict[str, list[int]] = {}
    missing: list[int] = []
    ready: list[int] = []
    for j, names in enumerate(requires):
        m = 0
        for nm in names:
            if nm and nm not in defined:
                m += 1
                waiting.setdefault(nm, []).append(j)
        missing.append(m)
        if m == 0:
            ready.append(j)
    while ready:
        j = ready.pop()
        yield j, ready
        for o in outputs(j):
            if o and o not in defined:
                defined.add(o)
                for k in waiting.pop(o, ()):
                    missing[k] -= 1
                    if missing[k] == 0:
                        ready.append(k)


def live_ops(ctx: Any, graph: Graph) -> np.ndarray:
    """Per operation: it assigns a graph output or a required input of a live operation (transitively)."""

    def build() -> np.ndarray:
        ix = index(ctx, graph)
        return reach(ix.n, ix.dptr, ix.e_src, ix.output_producers())

    return cached(ctx.cache, ("structure.live", id(graph)), build)


def dead_ops(ctx: Any, graph: Graph) -> np.ndarray:
    """Indices of operations none of whose output tensors is consumed or a graph output."""

    def build() -> np.ndarray:
        ix = index(ctx, graph)
        used = ix.consumed_ops()
        used[ix.output_producers()] = True
        return np.flatnonzero(~used)

    return cached(ctx.cache, ("structure.dead", id(graph)), build)
