"""GRAPH-R1-TRANSITIVE: every operation contributes to some graph output.

Seed statement (informal specification V2, rationale of restriction R1): each
node of the graph shall contribute to the function of the graph (no dead node).

Transitive reading: an operation contributes when it assigns a graph output or
a required input (explicit or implicit) of a contributing operation. In an
acyclic graph this rule fails exactly when GRAPH-R1 does, but it lists every
operation that would become dead once the dead ones are removed; operations
that only feed a cycle cut off from the outputs are caught here and not by R1.
"""

from __future__ import annotations

import numpy as np

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders, op_ref, show_op_ref
from ..model.index import topology
from ..model.structure import dead_ops, live_ops, scopes
from .base import CheckContext, Listing

ID = "GRAPH-R1-TRANSITIVE"
SEVERITY = Severity.ERROR
LISTING = Listing("operation(s) contribute to no graph output", "non_contributing", show_op_ref)


def check(ctx: CheckContext) -> Verdict:
    found = Offenders()
    for sc in scopes(ctx):
        g = sc.graph
        if topology(ctx, g).acyclic and not dead_ops(ctx, g).size:
            continue  # following consumers from any operation must end at a graph output
        ops = g.operations
        idle = np.flatnonzero(~live_ops(ctx, g))
        found.add(int(idle.size), (op_ref(sc.path, j, ops[j]) for j in idle.tolist()))
    return LISTING.verdict(found, ID, SEVERITY)
