"""GRAPH-INITIALIZERS-USED (warning): every initializer is read.

An initializer that no operation reads (in its graph, or in a graph nested in
one of its operations, which captures it) and that is not a graph output is
dead data: it changes no result, yet it is shipped, hashed and reviewed with
the model, and onnxruntime warns about it. The rule is a warning because the
model still computes what it says.

An initializer that is also a graph input (IR 4 and later: an input with a
default value) is not considered here: an unread input is GRAPH-C2's finding.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..model.index import index
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "GRAPH-INITIALIZERS-USED"
SEVERITY = Severity.WARNING
LISTING = Listing(
    "initializer(s) read by no operation", "unused", lambda f: f"{f['initializer']!r} {f['dims']} (in {f['scope']})"
)


def unused_initializers(ctx: CheckContext) -> list[dict[str, Any]]:
    """Every initializer no operation of its graph requires (captures count) and no graph output names."""
    found: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        ix = index(ctx, sc.graph)
        candidates = ix.initialized - ix.input_set - frozenset(sc.graph.outputs)
        if not candidates:
            continue
        read = {n for names in ix.req for n in names}
        for name in sorted(candidates - read):
            value = sc.graph.tensors[name].initial_value
            dims = [] if value is None else list(value.dims)
            found.append({"scope": sc.path, "initializer": name, "dims": dims})
    return found


def check(ctx: CheckContext) -> Verdict:
    found = unused_initializers(ctx)
    return LISTING.verdict(found, ID, SEVERITY)
