"""GRAPH-C1 (single producer): no tensor is written at two output positions.

Seed statement (informal specification V2, constraint C1): a tensor must appear
in the output mapping of exactly one operation, graph inputs excepted.

That sentence holds three requirements, each a rule of its own (spec 4.0.3 to
4.0.5). This one is "at most one producer": within one graph, no tensor is
named by two output-mapping entries, whether of two operations or twice by one
operation (two output positions naming it). Writes to a graph input or an
initialized tensor are GRAPH-C1-SOURCES; a nested graph redefining an enclosing
name is GRAPH-C1-SHADOWING; "at least one producer for every tensor that is
needed" is the completeness rule, GRAPH-C3.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.index import index
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "GRAPH-C1"
SEVERITY = Severity.ERROR
KIND = "assigned more than once"
LISTING = Listing("tensor(s) written more than once", "violations", lambda f: f"{f['tensor']!r} (in {f['scope']})", 3)


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        ix = index(ctx, sc.graph)
        ops = sc.graph.operations
        for name in sorted(ix.multi):
            found.append(
                {
                    "kind": KIND,
                    "scope": sc.path,
                    "tensor": name,
                    "producers": [{**op_ref(sc.path, j, ops[j]), "output": k} for j, k in ix.multi[name]],
                }
            )
    return LISTING.verdict(found, ID, SEVERITY)
