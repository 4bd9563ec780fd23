"""STRICT-OPSET (strict profile): every operator domain in use has an explicit opset version.

Strict-profile restriction: the meaning of an operator depends on the opset
version of its domain, so each domain used by an operation of the model
(nested graphs included) must appear in the model's opset imports (the
default domain under ``""`` or ``ai.onnx``). The operations in the body of a
model-local function are checked against that function's own opset imports,
or the model's when the function declares none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import first, op_ref
from ..model.graph import Graph
from ..model.index import operator_kinds
from ..model.structure import scopes
from .base import CheckContext
from .schemas import normal_domain, opset_version

ID = "STRICT-OPSET"
SEVERITY = Severity.ERROR


def _missing(paths: list[tuple[str, Graph]], imports: Mapping[str, int], where: str) -> list[dict[str, Any]]:
    """One entry per domain used in ``paths`` and absent from ``imports``, with its first use."""
    seen: dict[str, dict[str, Any]] = {}
    for path, g in paths:
        for j, op in enumerate(g.operations):
            d = normal_domain(op.domain)
            if d not in seen and opset_version(imports, d) is None:
                seen[d] = {"domain": d or "ai.onnx", "in": where, "first_use": op_ref(path, j, op)}
    return [seen[d] for d in sorted(seen)]


def check(ctx: CheckContext) -> Verdict:
    model = ctx.model
    used: set[str] = set()
    for sc in scopes(ctx):
        used.update(normal_domain(d) for d, _ in operator_kinds(ctx, sc.graph))
    found: list[dict[str, Any]] = []
    if any(opset_version(model.opset_imports, d) is None for d in used):
        found.extend(_missing([(sc.path, sc.graph) for sc in scopes(ctx)], model.opset_imports, "model"))
    for f in model.functions:
        imports = f.opset_imports or model.opset_imports
        where = f"function {f.domain + '.' if f.domain else ''}{f.name}"
        found.extend(_missing(list(f.body.nested()), imports, where))
    if not found:
        return Verdict.proved(ID, SEVERITY)
    shown = sorted({f"{f['domain']} ({f['in']})" for f in found})
    return Verdict.violated(
        ID,
        Witness(
            f"{len(found)} domain(s) used without an opset import: {', '.join(shown[:10])}",
            {"count": len(found), "missing": first(found)},
        ),
        SEVERITY,
    )
