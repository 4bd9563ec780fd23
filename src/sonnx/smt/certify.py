"""Untrusted producers of certificates and counter-certificates for the SMT engine.

Nothing computed here is believed. A certificate (ranks, firing times and the
write that defines each tensor, distances, the read that uses each input or
output...) or a counter-certificate (a cycle, a set of tensors that can never
be defined, dead or non-contributing operations) only chooses *which* raw facts
and which values an obligation mentions; the solver then checks the claim
against the raw facts of :mod:`.facts`. A wrong result here makes its
obligation fail (the verdict is UNKNOWN, a tool defect); it can never make a
rule pass or fail. These algorithms may join facts freely (writers of a
tensor, readers of a tensor): that is their job, and the solver re-checks it.

Fact references are indices into a scope's fact arrays (``rd_*`` for read
facts, ``wr_*`` for write facts).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence

import numpy as np

from .facts import ScopeFacts


class Index:
    """Readers and writers of each tensor of one scope (fact indices), as compact NumPy-built tables.

    ``writers(t)``/``readers(t)`` are views of int32 arrays; the fact arrays
    themselves are the scope's (``array('i')``), so nothing is copied into
    Python lists.
    """

    def __init__(self, f: ScopeFacts) -> None:
        self.f = f
        nt = f.n_tensors
        self._w_ptr, self._w_idx = _csr(f.wr_t, nt, f.t_base)
        self._r_ptr, self._r_idx = _csr(f.rd_t, nt, f.t_base)
        self.wr_o, self.wr_t, self.rd_o, self.rd_t = f.wr_o, f.wr_t, f.rd_o, f.rd_t

    def writers(self, t: int) -> memoryview:
        x = t - self.f.t_base
        return self._w_idx[self._w_ptr[x] : self._w_ptr[x + 1]]

    def readers(self, t: int) -> memoryview:
        x = t - self.f.t_base
        return self._r_idx[self._r_ptr[x] : self._r_ptr[x + 1]]

    def writer_counts(self) -> np.ndarray:
        """Number of write facts per tensor (local tensor number)."""
        return np.diff(np.frombuffer(self._w_ptr, dtype=np.int32))


def index_of(f: ScopeFacts) -> Index:
    """The :class:`Index` of a scope, built once and kept on the facts (every producer of a run shares it)."""
    ix = f.cache.get("index")
    if ix is None:
        ix = f.cache["index"] = Index(f)
    return ix  # type: ignore[return-value]


def _csr(keys: object, n: int, base: int) -> tuple[memoryview, memoryview]:
    k = np.frombuffer(keys, dtype=np.int32) if len(keys) else np.zeros(0, np.int32)  # type: ignore[call-overload,arg-type]
    order = np.argsort(k, kind="stable").astype(np.int32)
    ptr = np.zeros(n + 1, np.int32)
    if k.size:
        np.cumsum(np.bincount(k - base, minlength=n), out=ptr[1:])
    return ptr.data, order.data


# -- GRAPH-ACYCLIC -------------------------------------------------------------------------


def ranks_of(f: ScopeFacts) -> tuple[list[int], list[int]] | None:
    """:func:`ranks` of a scope, computed once per run."""
    if "ranks" not in f.cache:
        f.cache["ranks"] = ranks(f, index_of(f))
    return f.cache["ranks"]  # type: ignore[return-value]


def ranks(f: ScopeFacts, ix: Index) -> tuple[list[int], list[int]] | None:
    """Kahn ranks from 1: R per operation, T per tensor (its writers' highest rank, 0 without one); None if cyclic."""
    n, base = f.n, f.op_base
    indeg = _indegrees(f, ix)
    rank = [1] * n
    queue = deque(j for j in range(n) if indeg[j] == 0)
    seen = 0
    wr_ptr = f.wr_ptr
    while queue:
        a = queue.popleft()
        seen += 1
        ra = rank[a] + 1
        for i in range(wr_ptr[a], wr_ptr[a + 1]):
            for r in ix.readers(ix.wr_t[i]):
                b = ix.rd_o[r] - base
                if rank[b] < ra:
                    rank[b] = ra
                indeg[b] -= 1
                if indeg[b] == 0:
                    queue.append(b)
    if seen != n:
        return None
    trank = np.zeros(f.n_tensors, np.int64)
    if len(f.wr_t):
        by_op = np.asarray(rank, np.int64)
        np.maximum.at(trank, np.frombuffer(f.wr_t, np.int32) - f.t_base, by_op[np.frombuffer(f.wr_o, np.int32) - base])
    return rank, trank.tolist()


def _indegrees(f: ScopeFacts, ix: Index) -> list[int]:
    """Per operation, its dependency edges: the writers of each tensor of its read facts."""
    if not len(f.rd_t):
        return [0] * f.n
    nw = ix.writer_counts()
    rt = np.frombuffer(f.rd_t, np.int32) - f.t_base
    ro = np.frombuffer(f.rd_o, np.int32) - f.op_base
    return np.bincount(ro, weights=nw[rt], minlength=f.n).astype(np.int64).tolist()


Step = tuple[int, int]
"""(write fact index, read fact index): the writer's output is read by the next operation of a cycle."""


def cycle(f: ScopeFacts, ix: Index) -> list[Step] | None:
    """A short cycle through operations that Kahn's algorithm cannot rank, as (write, read) fact pairs."""
    n, base = f.n, f.op_base
    indeg = _indegrees(f, ix)
    queue = deque(j for j in range(n) if indeg[j] == 0)
    while queue:
        a = queue.popleft()
        for i in range(f.wr_ptr[a], f.wr_ptr[a + 1]):
            for r in ix.readers(ix.wr_t[i]):
                b = ix.rd_o[r] - base
                indeg[b] -= 1
                if indeg[b] == 0:
                    queue.append(b)
    left = [j for j in range(n) if indeg[j] > 0]
    if not left:
        return None
    keep = set(left)
    succ: dict[int, list[tuple[int, Step]]] = {}
    for a in left:
        for i in range(f.wr_ptr[a], f.wr_ptr[a + 1]):
            for r in ix.readers(ix.wr_t[i]):
                b = ix.rd_o[r] - base
                if b in keep:
                    succ.setdefault(a, []).append((b, (i, r)))
    return shortest_cycle_steps(succ, left[:64])


def shortest_cycle_steps(succ: dict[int, list[tuple[int, Step]]], starts: Sequence[int]) -> list[Step] | None:
    best: list[Step] | None = None
    for v in starts:
        parent: dict[int, tuple[int, Step] | None] = {v: None}
        queue = deque([v])
        found: list[Step] | None = None
        while queue and found is None:
            a = queue.popleft()
            for b, step in succ.get(a, ()):
                if b == v:
                    path = [step]
                    x = a
                    while x != v:
                        pe = parent[x]
                        assert pe is not None
                        path.append(pe[1])
                        x = pe[0]
                    path.reverse()
                    found = path
                    break
                if b not in parent:
                    parent[b] = (a, step)
                    queue.append(b)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
            if len(best) == 1:
                break
    return best


Edge = tuple[int, int, str]


def shortest_cycle(edges: Sequence[Edge], starts: Sequence[int] | None = None) -> list[Edge] | None:
    """A shortest cycle among operation edges ``(a, b, tensor)`` (used by partition verification)."""
    succ: dict[int, list[tuple[int, Step]]] = {}
    for k, (a, b, _) in enumerate(edges):
        succ.setdefault(a, []).append((b, (k, k)))
    steps = shortest_cycle_steps(succ, starts if starts is not None else sorted(succ))
    return None if steps is None else [edges[k] for k, _ in steps]


# -- GRAPH-C3 ------------------------------------------------------------------------------

Seed = tuple[str, int]
"""How a tensor gets its value: the index of its graph-input, initializer, capture or write fact, by kind."""


def derivation(f: ScopeFacts, ix: Index) -> tuple[dict[int, int], dict[int, tuple[int, Seed]]]:
    """Least firing times: fired operation (local) -> time; defined tensor -> (time, how it is defined)."""
    h: dict[int, tuple[int, Seed]] = {}
    for k, (_, t) in enumerate(f.inputs):
        h.setdefault(t, (0, ("input", k)))
    for k, t in enumerate(f.initialized):
        h.setdefault(t, (0, ("init", k)))
    for k, (t, _) in enumerate(f.captures):
        h.setdefault(t, (0, ("capture", k)))
    n = f.n
    missing = [0] * n
    waiting: dict[int, list[int]] = {}
    rd_ptr, rd_t, wr_ptr, wr_t = f.rd_ptr, ix.rd_t, f.wr_ptr, ix.wr_t
    for j in range(n):
        a, b = rd_ptr[j], rd_ptr[j + 1]
        for t in rd_t[a:b] if b - a < 2 else set(rd_t[a:b]):
            if t not in h:
                missing[j] += 1
                lst = waiting.get(t)
                if lst is None:
                    waiting[t] = [j]
                else:
                    lst.append(j)
    worst = [0] * n
    fired: dict[int, int] = {}
    heap = [(1, j) for j in range(n) if missing[j] == 0]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        time, j = pop(heap)
        if j in fired:
            continue
        fired[j] = time
        for i in range(wr_ptr[j], wr_ptr[j + 1]):
            t = wr_t[i]
            if t in h:
                continue
            h[t] = (time, ("write", i))
            for k in waiting.get(t, ()):
                missing[k] -= 1
                if worst[k] < time:
                    worst[k] = time
                if missing[k] == 0:
                    push(heap, (worst[k] + 1, k))
    return fired, h


def blocked_reads(f: ScopeFacts, ix: Index, fired: dict[int, int], h: dict[int, tuple[int, Seed]]) -> dict[int, int]:
    """For each operation that never fires: one of its read facts whose tensor is never defined."""
    out: dict[int, int] = {}
    for j in range(f.n):
        if j not in fired:
            for r in range(f.rd_ptr[j], f.rd_ptr[j + 1]):
                if ix.rd_t[r] not in h:
                    out[j] = r
                    break
    return out


# -- GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-C2 ----------------------------------------------

Use = tuple[str, int, int]
"""("read", write fact, read fact) or ("output", write fact, output position)."""


def uses(f: ScopeFacts, ix: Index) -> tuple[dict[int, Use], list[int]]:
    """Per operation (local) a used output with the read or graph output using it; and the dead operations."""
    out_pos: dict[int, int] = {}
    for k, t in f.outputs:
        out_pos.setdefault(t, k)
    found: dict[int, Use] = {}
    dead: list[int] = []
    for j in range(f.n):
        for i in range(f.wr_ptr[j], f.wr_ptr[j + 1]):
            t = ix.wr_t[i]
            rs = ix.readers(t)
            if rs:
                found[j] = ("read", i, rs[0])
                break
            if t in out_pos:
                found[j] = ("output", i, out_pos[t])
                break
        else:
            dead.append(j)
    return found, dead


def distances(f: ScopeFacts, ix: Index) -> tuple[dict[int, tuple[int, Use]], list[int]]:
    """Per contributing operation its distance to a graph output and the next step; and the others."""
    out_pos: dict[int, int] = {}
    for k, t in f.outputs:
        out_pos.setdefault(t, k)
    d: dict[int, tuple[int, Use]] = {}
    queue: deque[int] = deque()
    for t, k in out_pos.items():
        for i in ix.writers(t):
            j = ix.wr_o[i] - f.op_base
            if j not in d:
                d[j] = (0, ("output", i, k))
                queue.append(j)
    while queue:
        b = queue.popleft()
        db = d[b][0] + 1
        for r in range(f.rd_ptr[b], f.rd_ptr[b + 1]):
            for i in ix.writers(ix.rd_t[r]):
                a = ix.wr_o[i] - f.op_base
                if a not in d:
                    d[a] = (db, ("read", i, r))
                    queue.append(a)
    return d, [j for j in range(f.n) if j not in d]


def input_readers(f: ScopeFacts, ix: Index) -> tuple[dict[int, tuple[str, int]], list[tuple[int, int]]]:
    """Per graph-input position: ("exempt", an imposed position of the same name) or ("read", read fact).

    Also the unread, non-exempt inputs as (position, tensor), first position of each name.
    """
    exempt: dict[int, int] = {}
    if f.loop_body:
        for k, t in f.inputs[:2]:
            exempt.setdefault(t, k)
    out: dict[int, tuple[str, int]] = {}
    unread: list[tuple[int, int]] = []
    seen: set[int] = set()
    for k, t in f.inputs:
        if t in exempt:
            out[k] = ("exempt", exempt[t])
            continue
        rs = ix.readers(t)
        if rs:
            out[k] = ("read", rs[0])
        elif t not in seen:
            unread.append((k, t))
        seen.add(t)
    return out, unread
