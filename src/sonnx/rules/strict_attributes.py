"""STRICT-ATTRIBUTES (strict profile): no attribute is left to its default value.

Strict-profile restriction: an attribute that the ONNX schema gives a default
value must be written out in the model, so the meaning of an operation does
not depend on defaults that changed between opset versions or that a reader
has to look up.

For each operation, the schema is the one that the model's opset version for
the operation's domain selects (``onnx.defs.get_schema`` with that version as
the maximum). Every attribute that schema declares as optional with a default
value must be given. When no schema can be found (unknown domain or operator,
no opset import, an opset newer than the known schemas) the verdict cannot be
established for that operation: UNKNOWN, unless some operation violates.
"""

from __future__ import annotations

from typing import Any

import onnx

from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.index import operations_of, operator_kinds
from ..model.structure import scopes
from .base import CheckContext, Listing, counted_reasons, open_or_proved
from .schemas import opset_version, schema_at

ID = "STRICT-ATTRIBUTES"
SEVERITY = Severity.ERROR
LISTING = Listing(
    "operation(s) leave attributes to their defaults",
    "operations",
    lambda f: f"{f['operation']} lacks {', '.join(f['missing'])}",
    3,
)


def defaulted_attributes(schema: Any) -> tuple[str, ...]:
    """The attributes of ``schema`` that are optional and have a default value, sorted."""
    undefined = onnx.AttributeProto.UNDEFINED
    return tuple(
        sorted(n for n, a in schema.attributes.items() if not a.required and a.default_value.type != undefined)
    )


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    unknown: dict[str, int] = {}
    for sc in scopes(ctx):
        wanted: dict[tuple[str, str], tuple[str, ...]] = {}
        for domain, operator in operator_kinds(ctx, sc.graph):
            version = opset_version(ctx.model.opset_imports, domain)
            schema, why = schema_at(domain, operator, version)
            if schema is None:
                unknown[why] = unknown.get(why, 0) + sum(
                    1 for op in sc.graph.operations if op.domain == domain and op.operator == operator
                )
            elif defaulted_attributes(schema):
                wanted[(domain, operator)] = defaulted_attributes(schema)
        ops = sc.graph.operations
        for j in operations_of(sc.graph, set(wanted)) if wanted else ():
            op = ops[j]
            given = {a.name for a in op.attributes}
            missing = [n for n in wanted[(op.domain, op.operator)] if n not in given]
            if missing:
                found.append({**op_ref(sc.path, j, op), "missing": missing})
    if found:
        return LISTING.verdict(found, ID, SEVERITY, {"unknown_count": sum(unknown.values())})
    return open_or_proved(ID, SEVERITY, "no operator schema for some operations", counted_reasons(unknown))
