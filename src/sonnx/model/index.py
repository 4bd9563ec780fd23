"""The per-graph index: integer-coded operations and dependency edges, the topology and a cycle over them.

A :class:`GraphIndex` is built once per graph and check run (cached in the
check context) and read by the structural rules; the propagations over its
edges (topological peeling, reachability) are in :mod:`.propagate`. Nothing
here recurses. See :mod:`sonnx.model.structure` for the dependency relation
these edges encode.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from ..base.allocator import release_freed_heap
from ..base.caching import cached, gc_paused
from .graph import Graph, Operation
from .propagate import peel, sorted_distinct

NO_PRODUCER = -1


EMPTY = -2


GRAPH_INPUT = -3


INITIALIZED = -4


_NARROW_LIMIT = 2**31 - 1


def id_dtype(count: int) -> type[np.signedinteger[Any]]:
    """The integer type of an array of operation or occurrence numbers below ``count``: 32 bits when they fit.

    The index of a million operations holds a dozen arrays of one entry per
    input occurrence or edge; at half the width they take half the memory,
    and every value (an operation number, an occurrence number, or one of the
    negative marks above) is the same. Beyond 2**31 - 1 the platform's
    pointer-sized integer is used.
    """
    return np.int32 if count <= _NARROW_LIMIT else np.intp


_IN = itemgetter(3)


_OUT = itemgetter(4)


_ATTRS = itemgetter(5)


_OPERATOR = itemgetter(0)


_DOMAIN = itemgetter(1)


def operations_with_attributes(ops: Sequence[Operation]) -> list[int]:
    """Indices of the operations that carry attributes (only those can hold nested graphs)."""
    if not any(map(_ATTRS, ops)):
        return []
    return np.flatnonzero(np.fromiter(map(bool, map(_ATTRS, ops)), np.bool_, len(ops))).tolist()


def attribute_ops(ctx: Any, graph: Graph) -> list[int]:
    """:func:`operations_with_attributes` of ``graph`` (cached)."""
    return cached(ctx.cache, ("structure.attr", id(graph)), lambda: operations_with_attributes(graph.operations))


def operator_kinds(ctx: Any, graph: Graph) -> frozenset[tuple[str, str]]:
    """The distinct (domain, operator) pairs used by the operations of ``graph`` (cached)."""

    def build() -> frozenset[tuple[str, str]]:
        ops = graph.operations
        domains = set(map(_DOMAIN, ops))
        if len(domains) == 1:  # the common case: no pair to build per operation
            (d,) = domains
            return frozenset((d, o) for o in set(map(_OPERATOR, ops)))
        return frozenset(zip(map(_DOMAIN, ops), map(_OPERATOR, ops), strict=True))

    return cached(ctx.cache, ("structure.kinds", id(graph)), build)


def operations_of(graph: Graph, kinds: set[tuple[str, str]] | frozenset[tuple[str, str]]) -> list[int]:
    """Indices of the operations whose (domain, operator) is in ``kinds``."""
    return [j for j, op in enumerate(graph.operations) if (op[1], op[0]) in kinds]


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

    def __init__(self, graph: Graph, attr_ops: list[int]) -> None:
        self.graph = graph
        ops = graph.operations
        n = self.n = len(ops)
        self.attr_ops = attr_ops
        req: list[tuple[str, ...]] = list(map(_IN, ops))
        for j in self.attr_ops:
            req[j] = ops[j].required_inputs
        self.req = req
        outs: list[tuple[str, ...]] = list(map(_OUT, ops))
        self.outs = outs
        in_len = np.fromiter(map(len, req), np.intp, n)
        out_len = np.fromiter(map(len, outs), np.intp, n)
        self.in_ptr = np.zeros(n + 1, np.intp)
        np.cumsum(in_len, out=self.in_ptr[1:])
        self.ids = id_dtype(max(n, int(self.in_ptr[-1])))
        """The integer type of ``in_op``, ``code`` and the edge arrays (:func:`id_dtype`)."""
        arange = np.arange(n, dtype=self.ids)
        self.out_len = out_len
        self.in_op = np.repeat(arange, in_len)
        entries = int(out_len.sum())
        prod: dict[str, int] = dict(zip(chain.from_iterable(outs), np.repeat(arange, out_len).tolist(), strict=True))
        empties = 0
        if "" in prod:
            del prod[""]
            empties = sum(os.count("") for os in outs)
        self.empty_outputs = empties
        """How many output-mapping entries are empty (omitted optional outputs)."""
        self.multi: dict[str, list[tuple[int, int]]] = {}
        if len(prod) != entries - empties:
            self._find_multi(prod)
        self.prod = prod
        self.input_set = frozenset(graph.inputs)
        self.initialized = frozenset(nm for nm, t in graph.tensors.items() if t[2] is not None)
        self.code = self._resolve(prod)
        self._edges()
        self._succ: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _find_multi(self, prod: dict[str, int]) -> None:
        """Record every name assigned by more than one output-mapping entry; ``prod`` keeps the first."""
        entries: dict[str, list[tuple[int, int]]] = {}
        for j, os in enumerate(self.outs):
            for k, o in enumerate(os):
                if o:
                    entries.setdefault(o, []).append((j, k))
        self.multi = {o: e for o, e in entries.items() if len(e) > 1}
        for o, e in self.multi.items():
            prod[o] = e[0][0]

    def _resolve(self, prod: dict[str, int]) -> np.ndarray:
        added: list[str] = [""]
        prod[""] = EMPTY
        for nm, mark in chain(zip(self.graph.inputs, repeat(GRAPH_INPUT)), zip(self.initialized, repeat(INITIALIZED))):
            if nm not in prod:
                prod[nm] = mark
                added.append(nm)
        try:
            total = int(self.in_ptr[-1])
            return np.fromiter(map(prod.get, chain.from_iterable(self.req), repeat(NO_PRODUCER)), self.ids, total)
        finally:
            for nm in added:
                del prod[nm]

    def _edges(self) -> None:
        occ = np.flatnonzero(self.code >= 0).astype(self.ids, copy=False)
        src = self.code[occ]
        dst = self.in_op[occ]
        if self.multi:
            extra_src: list[int] = []
            extra_occ: list[int] = []
            firsts = np.fromiter((e[0][0] for e in self.multi.values()), np.intp, len(self.multi))
            picked = np.flatnonzero(np.isin(self.code, firsts))
            for k, name in zip(picked.tolist(), self.names_of(picked), strict=True):
                entries = self.multi.get(name)
                if entries is not None:
                    others = {j for j, _ in entries} - {entries[0][0]}
                    extra_src.extend(sorted(others))
                    extra_occ.extend([k] * len(others))
            if extra_src:
                xo = np.array(extra_occ, self.ids)
                occ = np.concatenate([occ, xo])
                src = np.concatenate([src, np.array(extra_src, self.ids)])
                dst = np.concatenate([dst, self.in_op[xo]])
                order = np.argsort(dst, kind="stable")
                occ, src, dst = occ[order], src[order], dst[order]
        self.e_occ, self.e_src, self.e_dst = occ, src, dst
        self.dptr = _pointers(dst, self.n)

    def succ(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Edges grouped by producing operation: (pointers, consumers, occurrences)."""
        if self._succ is None:
            order = np.argsort(self.e_src, kind="stable")
            self._succ = (_pointers(self.e_src[order], self.n), self.e_dst[order], self.e_occ[order])
        return self._succ

    def producers(self, name: str) -> list[int]:
        """Every operation assigning ``name`` (in order, without repetition)."""
        entries = self.multi.get(name)
        if entries is not None:
            return list(dict.fromkeys(j for j, _ in entries))
        j = self.prod.get(name)
        return [] if j is None else [j]

    def defines(self, name: str) -> bool:
        """True when this graph defines ``name`` (graph input, initializer or operation output)."""
        return name in self.prod or name in self.input_set or name in self.initialized

    def inputs_of(self, j: int) -> list[str]:
        """The required inputs of operation ``j`` as occurrences (omitted inputs included as '')."""
        return list(self.req[j])

    def names_of(self, occurrences: np.ndarray) -> list[str]:
        """The tensor of each input occurrence (by index in operation order)."""
        occ = np.asarray(occurrences, np.intp)
        ops = np.searchsorted(self.in_ptr, occ, side="right") - 1
        req = self.req
        return [req[j][k] for j, k in zip(ops.tolist(), (occ - self.in_ptr[ops]).tolist(), strict=True)]

    def output_producers(self) -> np.ndarray:
        """Operations that assign some graph output (each name's :meth:`producers`, sorted, without repetition).

        When every name has at most one producer (``multi`` empty) the names
        are looked up in one pass over ``prod``; a graph with hundreds of
        thousands of outputs then costs no Python call per output.
        """
        outputs = self.graph.outputs
        if not self.multi:
            found = np.fromiter(map(self.prod.get, outputs, repeat(NO_PRODUCER)), np.intp, len(outputs))
            return sorted_distinct(found[found >= 0])
        listed: list[int] = []
        for nm in outputs:
            listed.extend(self.producers(nm))
        return sorted_distinct(np.array(listed, np.intp))

    def consumed_ops(self) -> np.ndarray:
        """Boolean per operation: some tensor of its output mapping is a required input of an operation."""
        mask = np.zeros(self.n, np.bool_)
        mask[self.e_src] = True
        return mask


def _pointers(keys: np.ndarray, n: int) -> np.ndarray:
    ptr = np.zeros(n + 1, np.intp)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr


TRIM_FROM = 1 << 16
"""From this many operations, building an index gives the heap its temporaries freed back to the system."""


def index(ctx: Any, graph: Graph) -> GraphIndex:
    """The :class:`GraphIndex` of ``graph`` (cached; the index keeps the graph alive, so ids stay unique).

    Building the index of a large graph frees tens of megabytes of
    temporaries (the lists and integers its dictionary and arrays are made
    from); they are given back (:func:`~sonnx.base.allocator.release_freed_heap`)
    rather than kept while FORMAT-ONNX's child works beside the rules.
    """

    def build() -> GraphIndex:
        with gc_paused():
            ix = GraphIndex(graph, attribute_ops(ctx, graph))
        if ix.n >= TRIM_FROM:
            release_freed_heap()
        return ix

    return cached(ctx.cache, ("structure.index", id(graph)), build)


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


def find_cycle(ctx: Any, graph: Graph) -> list[tuple[int, int]] | None:
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
    seen: dict[int, None] = {}
    while v not in seen:  # every left-over operation has a left-over predecessor
        seen[v] = None
        v = next(u for u in (src[e] for e in range(dptr[v], dptr[v + 1])) if not done[u])
    sp, sd, so = (a.data for a in ix.succ())
    parent: dict[int, tuple[int, int]] = {v: (-1, -1)}
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
