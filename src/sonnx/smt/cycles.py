"""Untrusted counter-certificates of GRAPH-ACYCLIC: a short cycle among the operations Kahn's sort leaves.

As for every producer of :mod:`.certify`, nothing found here is believed: the
SMT encoding (:mod:`.graph_acyclic`) refutes a claimed cycle on its own raw
facts before reporting it. :func:`shortest_cycle` serves the partition
verification too (a cycle among the subgraphs of a partition).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from .fact_index import Index, indegrees
from .facts import ScopeFacts

Step = tuple[int, int]
"""(write fact index, read fact index): the writer's output is read by the next operation of a cycle."""


STARTS = 64
"""How many unranked operations the witness search of :func:`cycle` starts from."""


def cycle(f: ScopeFacts, ix: Index) -> list[Step] | None:
    """A short cycle through operations that Kahn's algorithm cannot rank, as (write, read) fact pairs.

    The shortest cycle through any of the first :data:`STARTS` unranked operations (local order): one
    breadth-first search per start, so at most ``STARTS`` searches of the unranked part of the graph for a
    witness that is only shown (the cycle it finds is refuted or confirmed by the solver before it is reported).
    """
    n, base = f.n, f.op_base
    indeg = indegrees(f, ix).tolist()
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
    return shortest_cycle_steps(succ, left[:STARTS])


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
