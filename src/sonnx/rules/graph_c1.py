"""GRAPH-C1 (single assignment): a tensor receives its value from at most one place.

Seed statement (informal specification V2, constraint C1): a tensor must appear
in the output mapping of exactly one operation, graph inputs excepted.

"Exactly one" is split in two. This rule checks "at most one": no tensor is
assigned by two output-mapping entries (of two operations, or twice by one),
and no operation assigns a graph input or a tensor that holds an initial value
(an initializer). "At least one for every tensor that is needed" is the
completeness rule, GRAPH-C3: a tensor nobody assigns is only a fault when some
output needs it.

Across scopes: a nested graph (a control-flow body) must not define, as a graph
input, an initializer or an operation output, a name that an enclosing graph
defines, since the inner definition would shadow the outer one.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.graph import Graph
from ..model.index import index
from ..model.structure import Scope, outer_definers, scopes
from .base import PROFILE_SONNX, CheckContext, Listing, Rule

ID = "GRAPH-C1"
SEVERITY = Severity.ERROR
LISTING = Listing(
    "single-assignment violation(s)", "violations", lambda f: f"{f['tensor']!r} ({f['kind']}, in {f['scope']})", 3
)


def _role(ctx: CheckContext, sc: Scope, name: str) -> dict[str, Any]:
    """How graph ``sc`` defines ``name``: as a graph input, an initializer, or by which operations."""
    ix = index(ctx, sc.graph)
    if name in ix.input_set:
        return {"scope": sc.path, "role": "graph input"}
    if name in ix.initialized:
        return {"scope": sc.path, "role": "initializer"}
    ops = sc.graph.operations
    return {
        "scope": sc.path,
        "role": "operation output",
        "producers": [op_ref(sc.path, j, ops[j]) for j in ix.producers(name)],
    }


def _in_graph(ctx: CheckContext, sc: Scope) -> list[dict[str, Any]]:
    ix = index(ctx, sc.graph)
    g: Graph = sc.graph
    ops = g.operations
    found: list[dict[str, Any]] = []
    for name in sorted(ix.multi):
        entries = ix.multi[name]
        found.append(
            {
                "kind": "assigned more than once",
                "scope": sc.path,
                "tensor": name,
                "producers": [{**op_ref(sc.path, j, ops[j]), "output": k} for j, k in entries],
            }
        )
    initialized_only = ix.initialized - ix.input_set
    for kind, names in (("assigns a graph input", ix.input_set), ("assigns an initialized tensor", initialized_only)):
        for name in sorted(n for n in names if n in ix.prod):
            found.append(
                {
                    "kind": kind,
                    "scope": sc.path,
                    "tensor": name,
                    "producers": [op_ref(sc.path, j, ops[j]) for j in ix.producers(name)],
                }
            )
    return found


def check(ctx: CheckContext) -> Verdict:
    all_scopes = scopes(ctx)
    outer = outer_definers(ctx)
    found: list[dict[str, Any]] = []
    for i, sc in enumerate(all_scopes):
        found.extend(_in_graph(ctx, sc))
        if sc.parent < 0:
            continue
        ix = index(ctx, sc.graph)
        for name in sorted(outer[i]):
            if ix.defines(name):
                found.append(
                    {
                        "kind": "shadows an outer name",
                        "scope": sc.path,
                        "tensor": name,
                        "inner": _role(ctx, sc, name),
                        "outer": _role(ctx, all_scopes[outer[i][name]], name),
                    }
                )
    return LISTING.verdict(found, ID, SEVERITY)


RULE = Rule(
    id=ID,
    severity=SEVERITY,
    profile=PROFILE_SONNX,
    check=check,
)
