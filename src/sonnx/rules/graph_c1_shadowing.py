"""GRAPH-C1-SHADOWING: a nested graph defines no name that an enclosing graph defines.

Third of the three requirements of constraint C1 (spec 4.0.5), across scopes:
a control-flow body defines no name (as a graph input, an initializer or an
operation output) that an enclosing graph defines, since the inner definition
would hide the outer one from the body and from every graph nested in it.
Sibling graphs may reuse a name; only enclosing graphs count. The witness names
the nearest enclosing definition.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.index import index
from ..model.structure import Scope, outer_definers, scopes
from .base import CheckContext, Listing

ID = "GRAPH-C1-SHADOWING"
SEVERITY = Severity.ERROR
KIND = "shadows an outer name"
LISTING = Listing(
    "name(s) shadowing an enclosing definition", "violations", lambda f: f"{f['tensor']!r} (in {f['scope']})", 3
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


def check(ctx: CheckContext) -> Verdict:
    all_scopes = scopes(ctx)
    outer = outer_definers(ctx)
    found: list[dict[str, Any]] = []
    for i, sc in enumerate(all_scopes):
        if sc.parent < 0:
            continue
        ix = index(ctx, sc.graph)
        for name in sorted(outer[i]):
            if ix.defines(name):
                found.append(
                    {
                        "kind": KIND,
                        "scope": sc.path,
                        "tensor": name,
                        "inner": _role(ctx, sc, name),
                        "outer": _role(ctx, all_scopes[outer[i][name]], name),
                    }
                )
    return LISTING.verdict(found, ID, SEVERITY)
