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
from typing import Dict, List, Sequence, Tuple

import numpy as np

from .facts import ScopeFacts


class Index:
    """Readers and writers of each tensor of one scope (lists of fact indices), built with NumPy."""

    def __init__(self, f: ScopeFacts) -> None:
        self.f = f
        nt = f.n_tensors
        self._w_ptr, self._w_idx = _csr(f.wr_t, nt, f.t_base)
        self._r_ptr, self._r_idx = _csr(f.rd_t, nt, f.t_base)
        self.wr_o = f.wr_o.tolist()
        self.wr_t = f.wr_t.tolist()
        self.rd_o = f.rd_o.tolist()
        self.rd_t = f.rd_t.tolist()

    def writers(self, t: int) -> List[int]:
        x = t - self.f.t_base
        return self._w_idx[self._w_ptr[x] : self._w_ptr[x + 1]]

    def readers(self, t: int) -> List[int]:
        x = t - self.f.t_base
        return self._r_idx[self._r_ptr[x] : self._r_ptr[x + 1]]


def _csr(keys: object, n: int, base: int) -> Tuple[List[int], List[int]]:
    if not len(keys):  # type: ignore[arg-type]
        return [0] * (n + 1), []
    k = np.frombuffer(keys, dtype=np.int32).astype(np.int64) - base  # type: ignore[call-overload]
    order = np.argsort(k, kind="stable")
    counts = np.bincount(k, minlength=n)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr.tolist(), order.tolist()


# -- GRAPH-ACYCLIC -------------------------------------------------------------------------


def ranks(f: ScopeFacts, ix: Index) -> Tuple[List[int], List[int]] | None:
    """Kahn ranks from 1: R per operation, T per tensor (its writers' highest rank, 0 without one); None if cyclic."""
    n, base = f.n, f.op_base
    nw = [len(ix.writers(t)) for t in range(f.t_base, f.t_base + f.n_tensors)]
    indeg = [0] * n
    for o, t in zip(ix.rd_o, ix.rd_t, strict=True):
        indeg[o - base] += nw[t - f.t_base]
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
    trank = [0] * f.n_tensors
    for o, t in zip(ix.wr_o, ix.wr_t, strict=True):
        x = t - f.t_base
        if trank[x] < rank[o - base]:
            trank[x] = rank[o - base]
    return rank, trank


Step = Tuple[int, int]
"""(write fact index, read fact index): the writer's output is read by the next operation of a cycle."""


def cycle(f: ScopeFacts, ix: Index) -> List[Step] | None:
    """A short cycle through operations that Kahn's algorithm cannot rank, as (write, read) fact pairs."""
    n, base = f.n, f.op_base
    indeg = [0] * n
    for o, t in zip(ix.rd_o, ix.rd_t, strict=True):
        indeg[o - base] += len(ix.writers(t))
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
    succ: Dict[int, List[Tuple[int, Step]]] = {}
    for a in left:
        for i in range(f.wr_ptr[a], f.wr_ptr[a + 1]):
            for r in ix.readers(ix.wr_t[i]):
                b = ix.rd_o[r] - base
                if b in keep:
                    succ.setdefault(a, []).append((b, (i, r)))
    return shortest_cycle_steps(succ, left[:64])


def shortest_cycle_steps(succ: Dict[int, List[Tuple[int, Step]]], starts: Sequence[int]) -> List[Step] | None:
    best: List[Step] | None = None
    for v in starts:
        parent: Dict[int, Tuple[int, Step] | None] = {v: None}
        queue = deque([v])
        found: List[Step] | None = None
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


Edge = Tuple[int, int, str]


def shortest_cycle(edges: Sequence[Edge], starts: Sequence[int] | None = None) -> List[Edge] | None:
    """A shortest cycle among operation edges ``(a, b, tensor)`` (used by partition verification)."""
    succ: Dict[int, List[Tuple[int, Step]]] = {}
    for k, (a, b, _) in enumerate(edges):
        succ.setdefault(a, []).append((b, (k, k)))
    steps = shortest_cycle_steps(succ, starts if starts is not None else sorted(succ))
    return None if steps is None else [edges[k] for k, _ in steps]


# -- GRAPH-C3 ------------------------------------------------------------------------------

Seed = Tuple[str, int]
"""How a tensor gets its value: the index of its graph-input, initializer, capture or write fact, by kind."""


def derivation(f: ScopeFacts, ix: Index) -> Tuple[Dict[int, int], Dict[int, Tuple[int, Seed]]]:
    """Least firing times: fired operation (local) -> time; defined tensor -> (time, how it is defined)."""
    h: Dict[int, Tuple[int, Seed]] = {}
    for k, (_, t) in enumerate(f.inputs):
        h.setdefault(t, (0, ("input", k)))
    for k, t in enumerate(f.initialized):
        h.setdefault(t, (0, ("init", k)))
    for k, (t, _) in enumerate(f.captures):
        h.setdefault(t, (0, ("capture", k)))
    n = f.n
    missing = [0] * n
    waiting: Dict[int, List[int]] = {}
    for j in range(n):
        for t in set(ix.rd_t[f.rd_ptr[j] : f.rd_ptr[j + 1]]):
            if t not in h:
                missing[j] += 1
                waiting.setdefault(t, []).append(j)
    worst = [0] * n
    fired: Dict[int, int] = {}
    heap = [(1, j) for j in range(n) if missing[j] == 0]
    heapq.heapify(heap)
    while heap:
        time, j = heapq.heappop(heap)
        if j in fired:
            continue
        fired[j] = time
        for i in range(f.wr_ptr[j], f.wr_ptr[j + 1]):
            t = ix.wr_t[i]
            if t in h:
                continue
            h[t] = (time, ("write", i))
            for k in waiting.get(t, ()):
                missing[k] -= 1
                worst[k] = max(worst[k], time)
                if missing[k] == 0:
                    heapq.heappush(heap, (worst[k] + 1, k))
    return fired, h


def blocked_reads(f: ScopeFacts, ix: Index, fired: Dict[int, int], h: Dict[int, Tuple[int, Seed]]) -> Dict[int, int]:
    """For each operation that never fires: one of its read facts whose tensor is never defined."""
    out: Dict[int, int] = {}
    for j in range(f.n):
        if j not in fired:
            for r in range(f.rd_ptr[j], f.rd_ptr[j + 1]):
                if ix.rd_t[r] not in h:
                    out[j] = r
                    break
    return out


# -- GRAPH-R1, GRAPH-R1-TRANSITIVE, GRAPH-C2 ----------------------------------------------

Use = Tuple[str, int, int]
"""("read", write fact, read fact) or ("output", write fact, output position)."""


def uses(f: ScopeFacts, ix: Index) -> Tuple[Dict[int, Use], List[int]]:
    """Per operation (local) a used output with the read or graph output using it; and the dead operations."""
    out_pos: Dict[int, int] = {}
    for k, t in f.outputs:
        out_pos.setdefault(t, k)
    found: Dict[int, Use] = {}
    dead: List[int] = []
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


def distances(f: ScopeFacts, ix: Index) -> Tuple[Dict[int, Tuple[int, Use]], List[int]]:
    """Per contributing operation its distance to a graph output and the next step; and the others."""
    out_pos: Dict[int, int] = {}
    for k, t in f.outputs:
        out_pos.setdefault(t, k)
    d: Dict[int, Tuple[int, Use]] = {}
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


def input_readers(f: ScopeFacts, ix: Index) -> Tuple[Dict[int, Tuple[str, int]], List[Tuple[int, int]]]:
    """Per graph-input position: ("exempt", an imposed position of the same name) or ("read", read fact).

    Also the unread, non-exempt inputs as (position, tensor), first position of each name.
    """
    exempt: Dict[int, int] = {}
    if f.loop_body:
        for k, t in f.inputs[:2]:
            exempt.setdefault(t, k)
    out: Dict[int, Tuple[str, int]] = {}
    unread: List[Tuple[int, int]] = []
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
