"""GRAPH-C1-SOURCES: no operation writes a graph input or an initialized tensor.

Second of the three requirements of constraint C1 (spec 4.0.4): a tensor that
receives its value before execution (a graph input, or a tensor with an
initial value) is never also in an operation's output mapping. An input that
has a default value (it is also an initializer) is reported once, as a graph
input.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.index import index
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "GRAPH-C1-SOURCES"
SEVERITY = Severity.ERROR
INPUT = "assigns a graph input"
INITIALIZED = "assigns an initialized tensor"
LISTING = Listing(
    "graph input(s) or initialized tensor(s) written by an operation",
    "violations",
    lambda f: f"{f['tensor']!r} ({f['kind']}, in {f['scope']})",
    3,
)


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        ix = index(ctx, sc.graph)
        ops = sc.graph.operations
        initialized_only = ix.initialized - ix.input_set
        for kind, names in ((INPUT, ix.input_set), (INITIALIZED, initialized_only)):
            for name in sorted(n for n in names if n in ix.prod):
                found.append(
                    {
                        "kind": kind,
                        "scope": sc.path,
                        "tensor": name,
                        "producers": [op_ref(sc.path, j, ops[j]) for j in ix.producers(name)],
                    }
                )
    return LISTING.verdict(found, ID, SEVERITY)
