"""GRAPH-R1: no dead operation (every operation has an output that something uses).

Seed statement (informal specification V2, final restriction list, R1): a
graph shall not contain nodes with no connected outputs; rationale: each node
of the graph shall contribute to the function of the graph (no dead node).

Node-level reading: an operation is dead when no tensor of its output mapping
is a required input of an operation of the same graph (explicit, or implicit
through a nested graph) nor a graph output. An operation with no output at all
is dead. The example graph of the seed (its ``Sub`` result is never read)
violates this rule. The stricter per-output form is GRAPH-R1-OUTPUTS and the
transitive form (contribution to some graph output) is GRAPH-R1-TRANSITIVE.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders, op_ref, show_op_ref
from ..model.graph import Operation
from ..model.structure import dead_ops, scopes
from .base import CheckContext, Listing

ID = "GRAPH-R1"
SEVERITY = Severity.ERROR
LISTING = Listing("dead operation(s), none of whose outputs is used", "dead", show_op_ref)


def check(ctx: CheckContext) -> Verdict:
    found = Offenders()
    for sc in scopes(ctx):
        ops = sc.graph.operations
        dead = dead_ops(ctx, sc.graph)
        found.add(int(dead.size), (dead_entry(sc.path, j, ops[j]) for j in dead.tolist()))
    return LISTING.verdict(found, ID, SEVERITY)



def dead_entry(path: str, j: int, op: Operation) -> dict[str, Any]:
    """A dead operation as the witness lists it (both engines): where it is, and the outputs nobody reads."""
    return {**op_ref(path, j, op), "outputs": [o for o in op.output_mapping if o]}
