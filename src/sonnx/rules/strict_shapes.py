"""STRICT-SHAPES (strict profile): every tensor has a declared, fully static type.

Strict-profile restriction: the element type and every dimension of each
tensor are known before execution, so memory, arithmetic and bounds can be
analysed statically (the same assumption as the ONNC converter of seed 002).

Checked, in every graph: each graph input, each graph output and each tensor
that an operation produces must have a declared type that is a dense tensor
with a known element type and fixed integer dimensions. This is strict on
purpose: a tensor named only in operation mappings, with no declared type
(no value_info entry), is a violation even when its type could be inferred.
"""

from __future__ import annotations

from itertools import chain

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders
from ..model.graph import Graph
from ..model.index import index
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "STRICT-SHAPES"
SEVERITY = Severity.ERROR
LISTING = Listing("tensor(s) without a static type", "tensors", lambda f: f"{f['tensor']!r} ({f['problem']})", 3)


def problem(g: Graph, name: str) -> str:
    """Why ``name`` does not have a static type in ``g`` ("" when it does)."""
    t = g.tensors.get(name)
    if t is None or t.type is None:
        return "no declared type"
    ty = t.type
    if ty.is_static:
        return ""
    if ty.kind != "tensor":
        return f"declared as {ty.kind}, not a dense tensor"
    if ty.elem_type == 0:
        return "element type unknown"
    if ty.shape is None:
        return "rank unknown"
    return f"shape {list(ty.shape)} is not fully static"


def check(ctx: CheckContext) -> Verdict:
    found = Offenders()
    for sc in scopes(ctx):
        g = sc.graph
        roles: dict[str, str] = {}
        for nm in g.inputs:
            roles.setdefault(nm, "graph input")
        for nm in g.outputs:
            roles.setdefault(nm, "graph output")
        for nm in chain.from_iterable(index(ctx, g).outs):
            if nm:
                roles.setdefault(nm, "operation output")
        bad = [nm for nm in roles if problem(g, nm)]
        found.add(
            len(bad), ({"scope": sc.path, "tensor": nm, "role": roles[nm], "problem": problem(g, nm)} for nm in bad)
        )
    return LISTING.verdict(found, ID, SEVERITY)
