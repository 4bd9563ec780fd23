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

import gc
from contextlib import contextmanager
from itertools import chain, islice, repeat
from operator import itemgetter
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Sequence, Tuple, TypeVar

import numpy as np

from .graph import Graph, Operation
from .scopes import child_segments, scope_path

LIMIT = 100
"""Most offenders a witness lists; the total count is always given."""

_BATCH = 64
"""Frontier size from which a propagation step is done with NumPy."""

NO_PRODUCER = -1
EMPTY = -2
GRAPH_INPUT = -3
INITIALIZED = -4

_IN = itemgetter(3)
_OUT = itemgetter(4)
_ATTRS = itemgetter(5)
_OPERATOR = itemgetter(0)
_DOMAIN = itemgetter(1)
T = TypeVar("T")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large indices (it would rescan the model)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cached(cache: Dict[object, object], key: object, build: Callable[[], T]) -> T:
    """``cache[key]``, computed by ``build`` on first use."""
    if key in cache:
        return cache[key]  # type: ignore[return-value]
    value = build()
    cache[key] = value
    return value


# -- scopes -------------------------------------------------------------------


class Scope(NamedTuple):
    """One graph of the model: its scope path, the graph, and the index of the enclosing scope (-1 for main)."""

    path: str
    graph: Graph
    parent: int


def operations_with_attributes(ops: Sequence[Operation]) -> List[int]:
    """Indices of the operations that carry attributes (only those can hold nested graphs)."""
    if not any(map(_ATTRS, ops)):
        return []
    return np.flatnonzero(np.fromiter(map(bool, map(_ATTRS, ops)), np.bool_, len(ops))).tolist()


def attribute_ops(ctx: Any, graph: Graph) -> List[int]:
    """:func:`operations_with_attributes` of ``graph`` (cached)."""
    return cached(ctx.cache, ("structure.attr", id(graph)), lambda: operations_with_attributes(graph.operations))


def operator_kinds(ctx: Any, graph: Graph) -> frozenset[Tuple[str, str]]:
    """The distinct (domain, operator) pairs used by the operations of ``graph`` (cached)."""

    def build() -> frozenset[Tuple[str, str]]:
        ops = graph.operations
        domains = set(map(_DOMAIN, ops))
        if len(domains) == 1:  # the common case: no pair to build per operation
            (d,) = domains
            return frozenset((d, o) for o in set(map(_OPERATOR, ops)))
        return frozenset(zip(map(_DOMAIN, ops), map(_OPERATOR, ops), strict=True))

    return cached(ctx.cache, ("structure.kinds", id(graph)), build)


def operations_of(graph: Graph, kinds: set[Tuple[str, str]] | frozenset[Tuple[str, str]]) -> List[int]:
    """Indices of the operations whose (domain, operator) is in ``kinds``."""
    return [j for j, op in enumerate(graph.operations) if (op[1], op[0]) in kinds]


def walk_scopes(
    root: Graph, attr_ops: Callable[[Graph], List[int]] = lambda g: operations_with_attributes(g.operations)
) -> List[Scope]:
    """Every graph under ``root`` in pre-order, with the same paths as :meth:`Graph.nested`."""
    out: List[Scope] = []
    stack: List[Tuple[Tuple[str, ...], int, Graph, int]] = [((root.name or "main",), 0, root, -1)]
    while stack:
        segments, depth, g, parent = stack.pop()
        me = len(out)
        out.append(Scope(scope_path(segments, depth), g, parent))
        children: List[Tuple[Tuple[str, ...], int, Graph, int]] = []
        ops = g.operations
        for j in attr_ops(g):
            op = ops[j]
            children.extend(
                (child_segments(segments, f"{op.label}.{attr}"), depth + 1, sub, me) for attr, sub in op.subgraphs
            )
        stack.extend(reversed(children))
    return out


def scopes(ctx: Any) -> List[Scope]:
    """The scopes of ``ctx.model`` (cached)."""
    return cached(
        ctx.cache, ("structure.scopes",), lambda: walk_scopes(ctx.model.graph, lambda g: attribute_ops(ctx, g))
    )


# -- per-graph index ----------------------------------------------------------


class GraphIndex:
    """Flat, integer-coded view of one graph's operations and dependency edges.

    The required inputs of all operations, one after the other, are the
    *occurrences* (``in_ptr`` delimits each operation's, ``in_op`` names the
    operation, :meth:`names_of` gives the tensors). ``code[k]`` is the first
    producer of occurrence ``k``, or :data:`NO_PRODUCER`, :data:`EMPTY` (an
    omitted optional input), :data:`GRAPH_INPUT` or :data:`INITIALIZED`.
    ``prod`` maps each assigned name to its first producer and ``multi`` lists
    the names assigned more than once. Edges (``e_src`` -> ``e_dst`` through
    occurrence ``e_occ``) are sorted by consumer; ``dptr`` indexes them.
    """

    def __init__(self, graph: Graph, attr_ops: List[int]) -> None:
        self.graph = graph
        ops = graph.operations
        n = self.n = len(ops)
        self.attr_ops = attr_ops
        req: List[Tuple[str, ...]] = list(map(_IN, ops))
        for j in self.attr_ops:
            req[j] = ops[j].required_inputs
        self.req = req
        outs: List[Tuple[str, ...]] = list(map(_OUT, ops))
        self.outs = outs
        arange = np.arange(n, dtype=np.intp)
        in_len = np.fromiter(map(len, req), np.intp, n)
        out_len = np.fromiter(map(len, outs), np.intp, n)
        self.in_ptr = np.zeros(n + 1, np.intp)
        np.cumsum(in_len, out=self.in_ptr[1:])
        self.out_len = out_len
        self.in_op = np.repeat(arange, in_len)
        entries = int(out_len.sum())
        prod: Dict[str, int] = dict(zip(chain.from_iterable(outs), np.repeat(arange, out_len).tolist(), strict=True))
        empties = 0
        if "" in prod:
            del prod[""]
            empties = sum(os.count("") for os in outs)
        self.empty_outputs = empties
        """How many output-mapping entries are empty (omitted optional outputs)."""
        self.multi: Dict[str, List[Tuple[int, int]]] = {}
        if len(prod) != entries - empties:
            self._find_multi(prod)
        self.prod = prod
        self.input_set = frozenset(graph.inputs)
        self.initialized = frozenset(nm for nm, t in graph.tensors.items() if t[2] is not None)
        self.code = self._resolve(prod)
        self._edges()
        self._succ: Tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _find_multi(self, prod: Dict[str, int]) -> None:
        """Record every name assigned by more than one output-mapping entry; ``prod`` keeps the first."""
        entries: Dict[str, List[Tuple[int, int]]] = {}
        for j, os in enumerate(self.outs):
            for k, o in enumerate(os):
                if o:
                    entries.setdefault(o, []).append((j, k))
        self.multi = {o: e for o, e in entries.items() if len(e) > 1}
        for o, e in self.multi.items():
            prod[o] = e[0][0]

    def _resolve(self, prod: Dict[str, int]) -> np.ndarray:
        added: List[str] = [""]
        prod[""] = EMPTY
        for nm, mark in chain(zip(self.graph.inputs, repeat(GRAPH_INPUT)), zip(self.initialized, repeat(INITIALIZED))):
            if nm not in prod:
                prod[nm] = mark
                added.append(nm)
        try:
            total = int(self.in_ptr[-1])
            return np.fromiter(map(prod.get, chain.from_iterable(self.req), repeat(NO_PRODUCER)), np.intp, total)
        finally:
            for nm in added:
                del prod[nm]

    def _edges(self) -> None:
        occ = np.flatnonzero(self.code >= 0)
        src = self.code[occ]
        dst = self.in_op[occ]
        if self.multi:
            extra_src: List[int] = []
            extra_occ: List[int] = []
            firsts = np.fromiter((e[0][0] for e in self.multi.values()), np.intp, len(self.multi))
            picked = np.flatnonzero(np.isin(self.code, firsts))
            for k, name in zip(picked.tolist(), self.names_of(picked), strict=True):
                entries = self.multi.get(name)
                if entries is not None:
                    others = {j for j, _ in entries} - {entries[0][0]}
                    extra_src.extend(sorted(others))
                    extra_occ.extend([k] * len(others))
            if extra_src:
                xo = np.array(extra_occ, np.intp)
                occ = np.concatenate([occ, xo])
                src = np.concatenate([src, np.array(extra_src, np.intp)])
                dst = np.concatenate([dst, self.in_op[xo]])
                order = np.argsort(dst, kind="stable")
                occ, src, dst = occ[order], src[order], dst[order]
        self.e_occ, self.e_src, self.e_dst = occ, src, dst
        self.dptr = _pointers(dst, self.n)

    def succ(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Edges grouped by producing operation: (pointers, consumers, occurrences)."""
        if self._succ is None:
            order = np.argsort(self.e_src, kind="stable")
            self._succ = (_pointers(self.e_src[order], self.n), self.e_dst[order], self.e_occ[order])
        return self._succ

    def producers(self, name: str) -> List[int]:
        """Every operation assigning ``name`` (in order, without repetition)."""
        entries = self.multi.get(name)
        if entries is not None:
            return list(dict.fromkeys(j for j, _ in entries))
        j = self.prod.get(name)
        return [] if j is None else [j]

    def defines(self, name: str) -> bool:
        """True when this graph defines ``name`` (graph input, initializer or operation output)."""
        return name in self.prod or name in self.input_set or name in self.initialized

    def inputs_of(self, j: int) -> List[str]:
        """The required inputs of operation ``j`` as occurrences (omitted inputs included as '')."""
        return list(self.req[j])

    def names_of(self, occurrences: np.ndarray) -> List[str]:
        """The tensor of each input occurrence (by index in operation order)."""
        occ = np.asarray(occurrences, np.intp)
        ops = np.searchsorted(self.in_ptr, occ, side="right") - 1
        req = self.req
        return [req[j][k] for j, k in zip(ops.tolist(), (occ - self.in_ptr[ops]).tolist(), strict=True)]

    def output_producers(self) -> np.ndarray:
        """Operations that assign some graph output."""
        found: List[int] = []
        for nm in self.graph.outputs:
            found.extend(self.producers(nm))
        return np.unique(np.array(found, np.intp))

    def consumed_ops(self) -> np.ndarray:
        """Boolean per operation: some tensor of its output mapping is a required input of an operation."""
        mask = np.zeros(self.n, np.bool_)
        mask[self.e_src] = True
        return mask


def _pointers(keys: np.ndarray, n: int) -> np.ndarray:
    ptr = np.zeros(n + 1, np.intp)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr


def index(ctx: Any, graph: Graph) -> GraphIndex:
    """The :class:`GraphIndex` of ``graph`` (cached; the index keeps the graph alive, so ids stay unique)."""

    def build() -> GraphIndex:
        with gc_paused():
            return GraphIndex(graph, attribute_ops(ctx, graph))

    return cached(ctx.cache, ("structure.index", id(graph)), build)


# -- propagations over flat edge arrays ----------------------------------------


def _gather(ptr: np.ndarray, vals: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """``vals[ptr[v]:ptr[v+1]]`` for every ``v`` of ``nodes``, concatenated."""
    starts = ptr[nodes]
    lens = ptr[nodes + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, np.intp)
    ends = np.cumsum(lens)
    return vals[np.repeat(starts - ends + lens, lens) + np.arange(total, dtype=np.intp)]


def peel(n: int, ptr: np.ndarray, vals: np.ndarray, indeg: np.ndarray) -> np.ndarray:
    """Kahn's peeling: which nodes get in-degree zero when sources are removed repeatedly.

    ``ptr``/``vals`` give each node's successors, one entry per edge;
    ``indeg`` (consumed) counts the same edges per target. The nodes left out
    are exactly those on a cycle or reachable from one. The peeling goes level
    by level: a wide level in one NumPy step, a narrow one (a chain) in a loop.
    """
    done = np.zeros(n, np.bool_)
    level = np.flatnonzero(indeg == 0)
    done[level] = True
    narrow: List[int] | None = None
    P, V, D, F = ptr.data, vals.data, indeg.data, done.data
    while True:
        if narrow is not None:
            if len(narrow) >= _BATCH:
                level, narrow = np.array(narrow, np.intp), None
                continue
            nxt: List[int] = []
            for a in narrow:
                for e in range(P[a], P[a + 1]):
                    b = V[e]
                    d = D[b] - 1
                    D[b] = d
                    if d == 0:
                        F[b] = True
                        nxt.append(b)
            if not nxt:
                return done
            narrow = nxt
            continue
        if level.size < _BATCH:
            narrow = level.tolist()
            continue
        targets = _gather(ptr, vals, level)
        u, c = np.unique(targets, return_counts=True)
        indeg[u] -= c
        level = u[indeg[u] == 0]
        done[level] = True
        if not level.size:
            return done


def reach(n: int, ptr: np.ndarray, vals: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Nodes reachable from ``start`` (included) following ``ptr``/``vals`` adjacency, level by level."""
    seen = np.zeros(n, np.bool_)
    level = np.unique(np.asarray(start, np.intp))
    seen[level] = True
    narrow: List[int] | None = None
    P, V, S = ptr.data, vals.data, seen.data
    while True:
        if narrow is not None:
            if len(narrow) >= _BATCH:
                level, narrow = np.array(narrow, np.intp), None
                continue
            nxt: List[int] = []
            for a in narrow:
                for e in range(P[a], P[a + 1]):
                    b = V[e]
                    if not S[b]:
                        S[b] = True
                        nxt.append(b)
            if not nxt:
                return seen
            narrow = nxt
            continue
        if level.size < _BATCH:
            narrow = level.tolist()
            continue
        nxt_level = _gather(ptr, vals, level)
        level = np.unique(nxt_level[~seen[nxt_level]])
        seen[level] = True
        if not level.size:
            return seen


# -- analyses -------------------------------------------------------------------


class Topology(NamedTuple):
    """Result of topological peeling: ``done[j]`` is False for operations on or after a cycle."""

    acyclic: bool
    done: np.ndarray


def topology(ctx: Any, graph: Graph) -> Topology:
    """Whether the dependency relation of ``graph`` is acyclic (whatever the file order)."""

    def build() -> Topology:
        ix = index(ctx, graph)
        if not np.any(ix.e_src >= ix.e_dst):  # the file order is a topological order
            return Topology(True, np.ones(ix.n, np.bool_))
        sptr, sdst, _ = ix.succ()
        done = peel(ix.n, sptr, sdst, np.bincount(ix.e_dst, minlength=ix.n))
        return Topology(bool(done.all()), done)

    return cached(ctx.cache, ("structure.topology", id(graph)), build)


def find_cycle(ctx: Any, graph: Graph) -> List[Tuple[int, int]] | None:
    """One cycle of the dependency relation, or None when acyclic.

    The cycle is a shortest one through an operation found to lie on a cycle,
    as ``(operation, occurrence)`` pairs: the occurrence (an index into
    occurrences, see :meth:`GraphIndex.names_of`) is the input of the *next* operation that reads the tensor
    linking them. A self-loop is a cycle of one pair.
    """
    top = topology(ctx, graph)
    if top.acyclic:
        return None
    ix = index(ctx, graph)
    done = top.done.data
    dptr, src = ix.dptr.data, ix.e_src.data
    v = int(np.flatnonzero(~top.done)[0])
    seen: Dict[int, None] = {}
    while v not in seen:  # every left-over operation has a left-over predecessor
        seen[v] = None
        v = next(u for u in (src[e] for e in range(dptr[v], dptr[v + 1])) if not done[u])
    sp, sd, so = (a.data for a in ix.succ())
    parent: Dict[int, Tuple[int, int]] = {v: (-1, -1)}
    queue = [v]
    for a in queue:
        for e in range(sp[a], sp[a + 1]):
            b = sd[e]
            if b == v:
                path = [(a, so[e])]
                while a != v:
                    a, occ = parent[a]
                    path.append((a, occ))
                path.reverse()
                return path
            if not done[b] and b not in parent:
                parent[b] = (a, so[e])
                queue.append(b)
    raise AssertionError("an operation left by peeling must lie on or after a cycle")


def outer_definers(ctx: Any) -> List[Dict[str, int]]:
    """For each scope, the names it defines or captures that an enclosing scope defines.

    ``result[i][name]`` is the index of the nearest enclosing scope that
    defines ``name`` (a graph input, an initializer or an operation output of
    that graph). Names of the main graph are looked up in its index, so a
    large main graph is never copied; nested levels are tracked with an
    explicit stack (no recursion, however deep the nesting).
    """

    def build() -> List[Dict[str, int]]:
        sc = scopes(ctx)
        result: List[Dict[str, int]] = [{} for _ in sc]
        if len(sc) == 1:
            return result
        main = index(ctx, sc[0].graph)
        children: List[List[int]] = [[] for _ in sc]
        for i, s in enumerate(sc):
            if s.parent >= 0:
                children[s.parent].append(i)
        visible: Dict[str, List[int]] = {}
        own: Dict[int, List[str]] = {}
        stack: List[Tuple[int, bool]] = [(c, True) for c in reversed(children[0])]
        while stack:
            i, entering = stack.pop()
            if not entering:
                for nm in own.pop(i):
                    lst = visible[nm]
                    lst.pop()
                    if not lst:
                        del visible[nm]
                continue
            ix = index(ctx, sc[i].graph)
            names = sorted(set(ix.prod) | ix.input_set | ix.initialized)
            res = result[i]
            for nm in chain(names, sorted(sc[i].graph.captures)):
                definers = visible.get(nm)
                if definers:
                    res[nm] = definers[-1]
                elif main.defines(nm):
                    res[nm] = 0
            for nm in names:
                visible.setdefault(nm, []).append(i)
            own[i] = names
            stack.append((i, False))
            stack.extend((c, True) for c in reversed(children[i]))
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
    waiting: Dict[str, List[int]] = {}
    missing = [0] * ix.n
    for j, names in enumerate(ix.req):
        for nm in names:
            if nm and nm not in defined:
                missing[j] += 1
                waiting.setdefault(nm, []).append(j)
    ready = [j for j in range(ix.n) if missing[j] == 0]
    fired = np.zeros(ix.n, np.bool_)
    outs = ix.outs
    while ready:
        j = ready.pop()
        fired[j] = True
        for o in outs[j]:
            if o and o not in defined:
                defined.add(o)
                for k in waiting.get(o, ()):
                    missing[k] -= 1
                    if missing[k] == 0:
                        ready.append(k)
    return Definedness(ix, fired, initial, defined)


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


# -- witnesses ----------------------------------------------------------------------


def op_ref(path: str, j: int, op: Operation) -> Dict[str, Any]:
    """How a witness names an operation: its scope path, its index in ``graph.operations``, its label."""
    return {"scope": path, "index": j, "operation": op.label}


def first(items: Sequence[T], limit: int = LIMIT) -> List[T]:
    """The first ``limit`` items (witness lists are bounded; the count is given beside them)."""
    return list(items[:limit])


def brief(items: Sequence[str], shown: int = 5, total: int | None = None) -> str:
    """A few items for a one-line summary: ``a, b, c (and 7 more)``; ``total`` counts items not passed."""
    head = ", ".join(items[:shown])
    rest = (len(items) if total is None else total) - min(shown, len(items))
    return f"{head} (and {rest} more)" if rest > 0 else head


class Offenders:
    """Counts every offender of a rule but keeps only the first :data:`LIMIT` for the witness."""

    def __init__(self) -> None:
        self.count = 0
        self.listed: List[Dict[str, Any]] = []

    @property
    def room(self) -> int:
        return LIMIT - len(self.listed)

    def add(self, total: int, details: Iterable[Dict[str, Any]]) -> None:
        """Count ``total`` more offenders; ``details`` (consumed lazily, at once) describes them in order."""
        self.count += total
        if total and self.room > 0:
            self.listed.extend(islice(details, self.room))
