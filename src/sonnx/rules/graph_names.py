"""GRAPH-NAMES: tensor names are unique within a graph, node names within the model.

Seed statement (informal specification V2, "Tensors"): tensors are uniquely
identified within a graph.

Tensor names: every name the source file declared twice in the same role (two
initializers, two graph inputs, two graph outputs, two value_info entries of
one name, as recorded in ``Graph.redeclared``) is a violation, and so is a name
listed twice among the graph inputs. A name that is both a graph input and an
initializer is not a conflict: from IR version 4 on the initializer is the
default value of that input (before IR 4 every initializer had to be listed as
an input). Names that clash *across* roles or scopes, such as an operation
assigning a graph input or a nested graph redefining an outer name, are
reported by GRAPH-C1-SOURCES and GRAPH-C1-SHADOWING.

Node names: the non-empty names of operations are unique across the whole
model, nested graphs included (an empty name is allowed and not compared).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import itemgetter
from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import first
from ..model.structure import scopes
from .base import CheckContext, Listing

ID = "GRAPH-NAMES"
SEVERITY = Severity.ERROR
LISTING = Listing("duplicated name(s)", "duplicates", lambda f: f"{f['kind']} {f['name']!r}: {f['problem']}", 3)
_NAME = itemgetter(2)


def tensor_problems(ctx: CheckContext) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        seen = set()
        for name, role in sc.graph.redeclared:
            seen.add((name, role))
            found.append(
                {"kind": "tensor", "name": name, "scope": sc.path, "problem": f"declared more than once as {role}"}
            )
        counts = Counter(sc.graph.inputs)
        for name in sorted(n for n, c in counts.items() if c > 1 and (n, "input") not in seen):
            found.append(
                {"kind": "tensor", "name": name, "scope": sc.path, "problem": "listed more than once as a graph input"}
            )
    return found


def node_problems(ctx: CheckContext) -> list[dict[str, Any]]:
    all_scopes = scopes(ctx)
    names = list(chain.from_iterable(filter(None, map(_NAME, sc.graph.operations)) for sc in all_scopes))
    if len(set(names)) == len(names):
        return []
    dups = {n for n, c in Counter(names).items() if c > 1}
    where: dict[str, list[dict[str, Any]]] = {n: [] for n in sorted(dups)}
    for sc in all_scopes:
        for j, op in enumerate(sc.graph.operations):
            if op.name in dups:
                where[op.name].append({"scope": sc.path, "index": j, "operation": op.label})
    return [
        {"kind": "node", "name": n, "problem": f"{len(w)} operations share this name", "locations": first(w)}
        for n, w in where.items()
    ]


def check(ctx: CheckContext) -> Verdict:
    found = tensor_problems(ctx) + node_problems(ctx)
    return LISTING.verdict(found, ID, SEVERITY)
