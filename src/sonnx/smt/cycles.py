"""Untrusted counter-certificates of GRAPH-ACYCLIC: a short cycle among the operations Kahn's sort leaves.

As for every producer of :mod:`.certify`, nothing found here is believed: the
SMT encoding (:mod:`.graph_acyclic`) refutes a claimed cycle on its own raw
facts before reporting it. :func:`shortest_cycle` serves the partition
verification too (a cycle among the subgraphs of a partition).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from .arrays import I64, expand
from .certify import kahn
from .fact_index import Index
from .facts import ScopeFacts

Step = tuple[int, int]
"""(write fact index, read fact index): the writer's output is read by the next operation of a cycle."""


STARTS = 64
"""How many unranked operations the witness search of :func:`cycle` starts from."""


def cycle(f: ScopeFacts, ix: Index) -> list[Step] | None:
    """A short cycle through operations that Kahn's algorithm cannot rank, as (write, read) fact pairs.

    The shortest cycle through any of the first :data:`STARTS` unranked operations (local order; the first
    of them on a tie), each found by a breadth-first search that takes the edges in fact order: a witness
    that is only shown (the cycle it finds is refuted or confirmed by the solver before it is reported).

    The searches run on the core of the unranked part (:func:`core`), which holds every cycle and every
    path between two operations of one; what they find is what they find on the whole graph. When every
    operation of the core has one edge in and one edge out, the core is disjoint simple cycles and the
    cycle through a start is its own circle, walked once per circle (:func:`_circles`); otherwise one
    search per start (:func:`shortest_cycle_steps`).
    """
    _, indeg = kahn(f, ix)
    left = np.flatnonzero(indeg > 0)
    if not left.size:
        return None
    a, b, w, r = core(f, ix, left)
    starts = left[:STARTS].tolist()
    n_in = np.bincount(b, minlength=f.n)
    n_out = np.bincount(a, minlength=f.n)
    inside = np.flatnonzero(n_out)
    # one edge out of each implies one edge in (every operation of the core has a predecessor in it): a guard
    if (n_in[inside] == 1).all() and (n_out[inside] == 1).all():
        return _circles(a, b, w, r, f.n, starts)
    succ: dict[int, list[tuple[int, Step]]] = {}
    for x, y, i, q in zip(a.tolist(), b.tolist(), w.tolist(), r.tolist(), strict=True):
        succ.setdefault(x, []).append((y, (i, q)))
    return shortest_cycle_steps(succ, starts)


def core(f: ScopeFacts, ix: Index, left: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The dependency edges among the unranked operations ``left`` that can reach a cycle: (a, b, write, read).

    In the order a loop would list them: by operation ``a`` ascending, then
    its write facts, then each tensor's readers in fact order. An unranked
    operation that no edge leads out of is on no cycle, nor is anything
    that only reaches such operations: they are peeled off, and so are
    their edges. Every operation of a cycle through a start, and every
    operation a search from that start can reach on its way back to it, can
    reach a cycle, so the searches are the same on what is kept.
    """
    unranked = np.zeros(f.n, bool)
    unranked[left] = True
    _, w = expand(ix.wr_ptr, left)
    owner, at = expand(ix.r_ptr, ix.wr_x[w])
    w, r = w[owner], ix.r_idx[at]
    a, b = ix.wr_j[w], ix.rd_j[r]  # a reader of an unranked operation's output is unranked too
    out = np.bincount(a, minlength=f.n)
    dead = np.flatnonzero(unranked & (out == 0))
    if dead.size:
        gone = np.zeros(f.n, bool)
        by_b = np.argsort(b, kind="stable")
        ptr = np.zeros(f.n + 1, I64)
        np.cumsum(np.bincount(b, minlength=f.n), out=ptr[1:])
        preds, counts = a[by_b].tolist(), out.tolist()
        ptr_l = ptr.tolist()
        queue = deque(dead.tolist())
        while queue:
            x = queue.popleft()
            gone[x] = True
            for k in range(ptr_l[x], ptr_l[x + 1]):
                p = preds[k]
                counts[p] -= 1
                if counts[p] == 0:
                    queue.append(p)
        keep = ~gone[b]
        a, b, w, r = a[keep], b[keep], w[keep], r[keep]
    return a, b, w, r


def _circles(
    a: np.ndarray, b: np.ndarray, w: np.ndarray, r: np.ndarray, n: int, starts: list[int]
) -> list[Step] | None:
    """:func:`shortest_cycle_steps` on a core of disjoint simple cycles: each start's circle, walked from it.

    The only path back to a start is its circle, so a search from the start
    finds the circle, taken from the start on. A start on a circle already
    walked has that circle's length, which cannot be shorter than the best
    so far: only the first start of each circle is walked.
    """
    nxt = np.full(n, -1, I64)
    nxt[a] = b
    edge = np.zeros(n, I64)
    edge[a] = np.arange(len(a), dtype=I64)
    walked = [False] * n
    nxt_l, edge_l, w_l, r_l = nxt.tolist(), edge.tolist(), w.tolist(), r.tolist()
    best: list[Step] | None = None
    for v in starts:
        if nxt_l[v] < 0 or walked[v]:
            continue
        path: list[Step] = []
        x = v
        while True:
            walked[x] = True
            e = edge_l[x]
            path.append((w_l[e], r_l[e]))
            x = nxt_l[x]
            if x == v:
                break
        if best is None or len(path) < len(best):
            best = path
            if len(best) == 1:
                break
    return best


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


def shortest_cycle(edges: Sequence[Edge]) -> list[Edge] | None:
    """A shortest cycle among operation edges ``(a, b, tensor)`` (used by partition verification)."""
    succ: dict[int, list[tuple[int, Step]]] = {}
    for k, (a, b, _) in enumerate(edges):
        succ.setdefault(a, []).append((b, (k, k)))
    steps = shortest_cycle_steps(succ, sorted(succ))
    return None if steps is None else [edges[k] for k, _ in steps]
