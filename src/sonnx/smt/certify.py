"""Untrusted certificate producers for the certificate mode of the SMT engine.

Nothing computed here is believed: each result is handed to z3 as constants,
and the obligation is satisfiable only if the certificate really is what it
claims (a strict ranking of the dependency edges, a cycle made of edges of the
model, the unique solution of the definedness or contribution equations).
A wrong certificate makes the obligation fail and the engine falls back to
search mode; it can never make a rule pass.
"""

from __future__ import annotations

from collections import deque
from typing import Dict, List, Sequence, Tuple

Edge = Tuple[int, int, str]


def ranks(n: int, edges: Sequence[Edge]) -> List[int] | None:
    """A topological rank per operation (Kahn's algorithm), or None when some operation is on or after a cycle."""
    indeg = [0] * n
    succ: List[List[int]] = [[] for _ in range(n)]
    for a, b, _ in edges:
        succ[a].append(b)
        indeg[b] += 1
    rank = [0] * n
    queue = deque(j for j in range(n) if indeg[j] == 0)
    seen = 0
    while queue:
        a = queue.popleft()
        seen += 1
        for b in succ[a]:
            if rank[b] <= rank[a]:
                rank[b] = rank[a] + 1
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    return rank if seen == n else None


def shortest_cycle(edges: Sequence[Edge], starts: Sequence[int] | None = None) -> List[Edge] | None:
    """A shortest cycle among ``edges`` (through one of ``starts`` when given), as a list of edges."""
    succ: Dict[int, List[Edge]] = {}
    for e in edges:
        succ.setdefault(e[0], []).append(e)
    best: List[Edge] | None = None
    for v in starts if starts is not None else sorted(succ):
        parent: Dict[int, Edge | None] = {v: None}
        queue = deque([v])
        found: List[Edge] | None = None
        while queue and found is None:
            a = queue.popleft()
            for e in succ.get(a, ()):
                b = e[1]
                if b == v:
                    path = [e]
                    x = a
                    while x != v:
                        pe = parent[x]
                        assert pe is not None
                        path.append(pe)
                        x = pe[0]
                    path.reverse()
                    found = path
                    break
                if b not in parent:
                    parent[b] = e
                    queue.append(b)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
            if len(best) == 1:
                break
    return best


def cycle(n: int, edges: Sequence[Edge]) -> List[Edge] | None:
    """Some short cycle of the graph (through an operation Kahn's algorithm cannot rank), or None."""
    indeg = [0] * n
    succ: List[List[int]] = [[] for _ in range(n)]
    for a, b, _ in edges:
        succ[a].append(b)
        indeg[b] += 1
    queue = deque(j for j in range(n) if indeg[j] == 0)
    while queue:
        a = queue.popleft()
        for b in succ[a]:
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    left = [j for j in range(n) if indeg[j] > 0]
    if not left:
        return None
    keep = set(left)
    sub = [e for e in edges if e[0] in keep and e[1] in keep]
    return shortest_cycle(sub, left[:64])
