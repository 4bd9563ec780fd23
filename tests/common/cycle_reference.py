"""The witness search of GRAPH-ACYCLIC's SMT encoding as plain loops over the whole unranked part.

The reference :func:`sonnx.smt.cycles.cycle` must agree with, cycle for
cycle: Kahn's sort by a queue, then one breadth-first search per start
(the first ``STARTS`` unranked operations) over every unranked operation,
without the core or the walk around circles that the encoding uses.
"""

from __future__ import annotations

from collections import deque

from sonnx.smt.cycles import STARTS, Step, shortest_cycle_steps
from sonnx.smt.fact_index import Index, indegrees
from sonnx.smt.facts import ScopeFacts


def reference_cycle(f: ScopeFacts, ix: Index) -> list[Step] | None:
    """The shortest cycle through one of the first ``STARTS`` unranked operations (the first start on a tie)."""
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
