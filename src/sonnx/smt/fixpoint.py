"""Least fixpoints as the unique solution of capped min/max equations.

Definedness (GRAPH-C3) and contribution (GRAPH-R1-TRANSITIVE) are least
fixpoints. Both are written as integer equations whose solution is unique,
so any model z3 returns *is* the least fixpoint:

* firing time of an operation ``f = 1 + max(h of its inputs)`` (``1`` with no
  input to wait for), capped at ``INF``; time of a tensor ``h = min(f of its
  producers)`` (``INF`` with none; ``0`` when seeded);
* distance to an output ``d = 0`` for an operation assigning a graph output,
  else ``1 + min(d of its consumers)``, capped at ``INF``.

Every step adds 1, so a finite value needs a strictly decreasing chain of
justifications ending at a seed: a cycle cannot support itself, and the
values reached are exactly those of the least fixpoint (``INF`` = never).
Here also the untrusted producers of certificate values (Dijkstra-style
propagation); z3 checks them against the equations.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Dict, List, Sequence, Tuple


def nested(op: str, terms: Sequence[str]) -> str:
    """max (op ``>=``) or min (op ``<=``) of terms as nested ite."""
    acc = terms[0]
    for t in terms[1:]:
        acc = f"(ite ({op} {acc} {t}) {acc} {t})"
    return acc


def capped_step(value: str, m: str, inf: int) -> str:
    """The equation ``value = (m >= INF ? INF : m + 1)``; for a numeral ``value`` below INF, its short form.

    When ``value`` is a certificate's numeral v < INF, the capped equation
    holds exactly when ``v = m + 1`` (v < INF forces m < INF, so the cap is
    not taken), and the short form is written: a third of the text, and
    z3's parser is the cost at scale. Otherwise the capped form is written.
    """
    if value.isdigit() and int(value) < inf:
        return f"(= {value} (+ {m} 1))"
    return f"(= {value} (ite (>= {m} {inf}) {inf} (+ {m} 1)))"


def firing_times(
    n: int, req: Sequence[Tuple[str, ...]], producers: Dict[str, List[int]], seeded: frozenset[str], inf: int
) -> Tuple[List[int], Dict[str, int]]:
    """Least firing time of each operation and least time of each tensor (untrusted certificate).

    When every tensor has one producer, a tensor's time is its producer's and
    the operations can be timed in any order that respects the dependencies
    (Kahn's algorithm, :func:`_single_producer_times`); otherwise the least
    time of a tensor is the earliest of its producers, and operations are
    timed in increasing time order (a heap).
    """
    if all(len(ps) == 1 for ps in producers.values()):
        return _single_producer_times(n, req, producers, seeded, inf)
    return heap_times(n, req, producers, seeded, inf)


def heap_times(
    n: int, req: Sequence[Tuple[str, ...]], producers: Dict[str, List[int]], seeded: frozenset[str], inf: int
) -> Tuple[List[int], Dict[str, int]]:
    """:func:`firing_times` for any producers: operations timed in increasing time order."""
    waiting: Dict[str, List[int]] = {}
    missing = [0] * n
    h: Dict[str, int] = {}
    f = [inf] * n
    for j, names in enumerate(req):
        for t in set(names):
            if t not in seeded:
                missing[j] += 1
                waiting.setdefault(t, []).append(j)
    worst = [0] * n
    heap = [(1, j) for j in range(n) if missing[j] == 0]
    heapq.heapify(heap)
    outs: Dict[int, List[str]] = {}
    for t, ps in producers.items():
        for p in ps:
            outs.setdefault(p, []).append(t)
    while heap:
        time, j = heapq.heappop(heap)
        if f[j] != inf:
            continue
        f[j] = time
        for t in outs.get(j, ()):
            if t in h or t in seeded:
                continue
            h[t] = time
            for k in waiting.get(t, ()):
                missing[k] -= 1
                worst[k] = max(worst[k], time)
                if missing[k] == 0:
                    heapq.heappush(heap, (min(worst[k] + 1, inf), k))
    return f, h


def _single_producer_times(
    n: int, req: Sequence[Tuple[str, ...]], producers: Dict[str, List[int]], seeded: frozenset[str], inf: int
) -> Tuple[List[int], Dict[str, int]]:
    """:func:`firing_times` when no tensor has two producers: one pass in dependency order."""
    prod = {t: ps[0] for t, ps in producers.items() if t not in seeded}
    consumers: List[List[int]] = [[] for _ in range(n)]
    missing = [0] * n
    for j, names in enumerate(req):
        deps = {prod.get(t, -1) for t in names if t not in seeded}
        if -1 in deps:  # an input nothing defines: this operation never fires
            deps.discard(-1)
            missing[j] = n + 1
        for p in deps:
            consumers[p].append(j)
        missing[j] += len(deps)
    f = [inf] * n
    worst = [0] * n
    queue = deque(j for j in range(n) if missing[j] == 0)
    while queue:
        j = queue.popleft()
        f[j] = time = worst[j] + 1
        for k in consumers[j]:
            if worst[k] < time:
                worst[k] = time
            missing[k] -= 1
            if missing[k] == 0:
                queue.append(k)
    h = {t: f[p] for t, p in prod.items() if f[p] != inf}
    return f, h


def distances(n: int, succ: Sequence[Sequence[Tuple[int, str]]], sources: Sequence[int], inf: int) -> List[int]:
    """Distance from each operation to an operation assigning a graph output (untrusted certificate)."""
    pred: List[List[int]] = [[] for _ in range(n)]
    for a, lst in enumerate(succ):
        for b, _ in lst:
            pred[b].append(a)
    d = [inf] * n
    q: deque[int] = deque()
    for s in sources:
        if d[s] != 0:
            d[s] = 0
            q.append(s)
    while q:
        b = q.popleft()
        for a in pred[b]:
            if d[a] == inf:
                d[a] = d[b] + 1
                q.append(a)
    return d
