"""Propagations over adjacency arrays (``ptr``/``vals``: a node's successors are ``vals[ptr[v]:ptr[v+1]]``).

Kahn's peeling and reachability, level by level: a wide level is one NumPy
step, a narrow one (a chain) a plain loop over the flat arrays, so that a
million-operation chain costs no NumPy call per operation. Used by the graph
index (:mod:`.index`) and the structural analyses (:mod:`.structure`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_BATCH = 64
"""Frontier size from which a propagation step is done with NumPy."""


def _gather(ptr: np.ndarray, vals: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """``vals[ptr[v]:ptr[v+1]]`` for every ``v`` of ``nodes``, concatenated."""
    starts = ptr[nodes]
    lens = ptr[nodes + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, np.intp)
    ends = np.cumsum(lens)
    return vals[np.repeat(starts - ends + lens, lens) + np.arange(total, dtype=np.intp)]


def _levels(
    level: np.ndarray, wide: Callable[[np.ndarray], np.ndarray], narrow: Callable[[list[int]], list[int]]
) -> None:
    """Drive a propagation level by level from ``level`` until a level comes out empty.

    A wide level (at least ``_BATCH`` nodes) goes through ``wide``, one NumPy
    step that returns the next level. A narrow one goes to ``narrow``, a plain
    loop over flat arrays that follows levels for as long as they stay narrow
    (a chain) and returns the first one that is wide or empty.
    """
    while level.size:
        level = wide(level) if level.size >= _BATCH else np.array(narrow(level.tolist()), np.intp)


def peel(n: int, ptr: np.ndarray, vals: np.ndarray, indeg: np.ndarray) -> np.ndarray:
    """Kahn's peeling: which nodes get in-degree zero when sources are removed repeatedly.

    ``ptr``/``vals`` give each node's successors, one entry per edge;
    ``indeg`` (consumed) counts the same edges per target. The nodes left out
    are exactly those on a cycle or reachable from one. The peeling goes level
    by level (see :func:`_levels`).
    """
    done = np.zeros(n, np.bool_)
    level = np.flatnonzero(indeg == 0)
    done[level] = True

    def wide(level: np.ndarray) -> np.ndarray:
        u, c = np.unique(_gather(ptr, vals, level), return_counts=True)
        indeg[u] -= c
        level = u[indeg[u] == 0]
        done[level] = True
        return level

    def narrow(front: list[int]) -> list[int]:
        P, V, D, F = ptr.data, vals.data, indeg.data, done.data
        while front and len(front) < _BATCH:
            nxt: list[int] = []
            for a in front:
                for e in range(P[a], P[a + 1]):
                    b = V[e]
                    d = D[b] - 1
                    D[b] = d
                    if d == 0:
                        F[b] = True
                        nxt.append(b)
            front = nxt
        return front

    _levels(level, wide, narrow)
    return done


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a one-dimensional integer array, ascending, as ``np.unique`` gives them; without
    ``np.unique``'s test for a masked array, whose first use imports ``numpy.ma``, which a check has no other use
    for."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def reach(n: int, ptr: np.ndarray, vals: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Nodes reachable from ``start`` (included) following ``ptr``/``vals`` adjacency, level by level."""
    seen = np.zeros(n, np.bool_)
    level = sorted_distinct(np.asarray(start, np.intp))
    seen[level] = True

    def wide(level: np.ndarray) -> np.ndarray:
        nxt = _gather(ptr, vals, level)
        level = np.unique(nxt[~seen[nxt]])
        seen[level] = True
        return level

    def narrow(front: list[int]) -> list[int]:
        P, V, S = ptr.data, vals.data, seen.data
        while front and len(front) < _BATCH:
            nxt: list[int] = []
            for a in front:
                for e in range(P[a], P[a + 1]):
                    b = V[e]
                    if not S[b]:
                        S[b] = True
                        nxt.append(b)
            front = nxt
        return front

    _levels(level, wide, narrow)
    return seen
