"""GRAPH-R1-OUTPUTS: every output an operation produces is used (warning).

Seed statement (informal specification V2, first form of restriction R1):
each operation output must be used in the input mapping of at least one
operation or be mapped to some graph output.

Per-output reading of R1: each non-empty entry of an output mapping must be a
required input of some operation of the same graph (explicit or implicit) or a
graph output. An unread secondary output, such as the mask of a ``Dropout``,
violates it. It is a warning: the operation may still be needed for its other
outputs (the node-level rule is GRAPH-R1).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

import numpy as np

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders, op_ref
from ..model.index import GraphIndex, index
from ..model.structure import dead_ops, scopes
from .base import CheckContext, Listing

ID = "GRAPH-R1-OUTPUTS"
SEVERITY = Severity.WARNING
LISTING = Listing(
    "operation output(s) never used", "unused", lambda f: f"{f['tensor']!r} of {f['operation']} (in {f['scope']})"
)


def unused_entries(ix: GraphIndex, dead: np.ndarray) -> tuple[int, Iterator[tuple[int, int, str]]]:
    """How many non-empty output entries are unused, and (operation, position, tensor) for each, in order.

    The entries are produced lazily: a witness only needs the first few.
    """
    outs = ix.outs
    single = dead[ix.out_len[dead] == 1]  # an operation with one output and no user: that output is unused
    if ix.empty_outputs:
        single = np.array([j for j in single.tolist() if outs[j][0]], np.intp)
    wide = ix.out_len >= 2
    found: list[tuple[int, int, str]] = []
    if wide.any():
        occ = np.flatnonzero(ix.code >= 0)
        pick = wide[ix.code[occ]]
        if ix.multi:  # a tensor assigned twice: any occurrence of it counts for every producer
            firsts = np.array([e[0][0] for e in ix.multi.values()], np.intp)
            pick |= np.isin(ix.code[occ], firsts)
        used = set(ix.names_of(occ[pick]))
        used.update(ix.graph.outputs)
        for j in np.flatnonzero(wide).tolist():
            found.extend((j, k, nm) for k, nm in enumerate(outs[j]) if nm and nm not in used)
    return len(single) + len(found), heapq.merge(((j, 0, outs[j][0]) for j in single.tolist()), found)


def check(ctx: CheckContext) -> Verdict:
    found = Offenders()
    for sc in scopes(ctx):
        ops = sc.graph.operations
        count, entries = unused_entries(index(ctx, sc.graph), dead_ops(ctx, sc.graph))
        found.add(
            count,
            ({**op_ref(sc.path, j, ops[j]), "output": pos, "tensor": nm} for j, pos, nm in entries),
        )
    return LISTING.verdict(found, ID, SEVERITY)
