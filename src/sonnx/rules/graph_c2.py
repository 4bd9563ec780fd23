"""GRAPH-C2 (input usage): every graph input is read by some operation.

Seed statement (informal specification V2, constraint C2): every graph input
must be used in the input mapping of at least one operation.

An input counts as used when it is in the input mapping of an operation of the
same graph, or when a graph nested in one of its operations reads it (an
implicit input of that operation). An input that is passed straight through as
a graph output but that no operation reads is *not* used: the seed asks for
use in an input mapping. The rule applies to nested graphs as well, with
one exception: the first two inputs of a ``Loop`` body (the iteration number
and the incoming condition) are imposed by the ``Loop`` operator's signature,
not chosen by the model's author, so a body may ignore them (spec ambiguity
A7).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from ..base.verdict import Severity, Verdict
from ..model.index import GRAPH_INPUT, GraphIndex, attribute_ops, index
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "GRAPH-C2"
SEVERITY = Severity.ERROR
LISTING = Listing("graph input(s) read by no operation", "unused", lambda f: f"{f['input']!r} (in {f['scope']})")


def unused_inputs(ix: GraphIndex) -> list[str]:
    """The graph inputs of ``ix.graph`` that no operation requires, in input order."""
    used = set(ix.names_of(np.flatnonzero(ix.code == GRAPH_INPUT)))
    produced = [nm for nm in ix.input_set if nm in ix.prod]  # also assigned (a GRAPH-C1-SOURCES fault)
    if produced:
        everything = set(chain.from_iterable(ix.req))
        used.update(nm for nm in produced if nm in everything)
    return [nm for nm in dict.fromkeys(ix.graph.inputs) if nm not in used]


LOOP_IMPOSED_INPUTS = 2
"""A Loop body's inputs 0 and 1 (iteration number, condition) exist because Loop's signature demands them."""


def imposed_inputs(ctx: CheckContext) -> dict[int, int]:
    """For each graph (by id) that is the body of a ``Loop``, how many leading inputs the operator imposes."""
    out: dict[int, int] = {}
    for sc in scopes(ctx):
        for k in attribute_ops(ctx, sc.graph):
            op = sc.graph.operations[k]
            if op.operator == "Loop" and op.domain == "":
                body = op.attribute("body")
                if body is not None and body.type == "GRAPH":
                    out[id(body.value)] = LOOP_IMPOSED_INPUTS
    return out


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    imposed = imposed_inputs(ctx)
    for sc in scopes(ctx):
        ix = index(ctx, sc.graph)
        position = {nm: k for k, nm in reversed(list(enumerate(sc.graph.inputs)))}
        exempt = set(sc.graph.inputs[: imposed.get(id(sc.graph), 0)])
        found.extend(
            {"scope": sc.path, "input": nm, "position": position[nm]}
            for nm in unused_inputs(ix)
            if nm not in exempt
        )
    return LISTING.verdict(found, ID, SEVERITY)
