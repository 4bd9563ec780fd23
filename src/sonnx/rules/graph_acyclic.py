"""GRAPH-ACYCLIC: no operation depends, directly or through others, on its own results.

Seed statement (informal graph specification, first text, "Constraints"):
the graph has no cycle, which is what allows its nodes to be put in a
topological order and executed in that order.

Dependency relation: operation A precedes B when a tensor of A's output
mapping is one of B's required inputs, i.e. its input mapping plus the outer
tensors its nested graphs read (implicit inputs). The order of the operations
in the file plays no part: an acyclic graph listed out of order passes. An
operation reading its own output is a cycle of length one.

The check peels the graph topologically (Kahn); when operations are left
over, it walks predecessors among them until one repeats (that operation is
on a cycle) and reports a shortest cycle through it, found breadth first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import LIMIT, brief, first
from ..model.index import find_cycle, index, topology
from ..model.structure import Scope, scopes
from .base import CheckContext

ID = "GRAPH-ACYCLIC"
SEVERITY = Severity.ERROR


def _witness(ctx: CheckContext, sc: Scope, cyclic: list[str]) -> Witness:
    cycle = find_cycle(ctx, sc.graph)
    assert cycle is not None
    ix = index(ctx, sc.graph)
    ops = sc.graph.operations
    shown = cycle[:LIMIT]
    tensors = ix.names_of(np.array([occ for _, occ in shown], np.intp))
    steps: list[dict[str, Any]] = [
        {"index": j, "operation": ops[j].label, "tensor": t} for (j, _), t in zip(shown, tensors, strict=True)
    ]
    labels = [ops[j].label for j, _ in cycle]
    if len(cycle) == 1:
        what = f"operation {labels[0]} reads its own output {steps[0]['tensor']!r}"
    else:
        what = f"a cycle of {len(cycle)} operations ({brief(labels)})"
    extra = f"; {len(cyclic) - 1} more graph(s) have cycles" if len(cyclic) > 1 else ""
    return Witness(
        f"in graph {sc.path}: {what}{extra}",
        {
            "scope": sc.path,
            "length": len(cycle),
            "cycle": steps,
            "cyclic_graphs": first(cyclic),
            "cyclic_graph_count": len(cyclic),
        },
    )


def check(ctx: CheckContext) -> Verdict:
    cyclic = [sc for sc in scopes(ctx) if not topology(ctx, sc.graph).acyclic]
    if not cyclic:
        return Verdict.proved(ID, SEVERITY)
    return Verdict.violated(ID, _witness(ctx, cyclic[0], [sc.path for sc in cyclic]), SEVERITY)
