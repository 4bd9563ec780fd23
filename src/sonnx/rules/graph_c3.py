"""GRAPH-C3 (completeness): when execution stops, every graph output has a value.

Seed statement (informal specification V2, constraint C3): at the end of
execution, all tensors designated as graph outputs must have values.

Decision by the definedness fixpoint of the execution semantics: initially the
graph inputs and the initialized tensors have values, and in a nested graph
also the names it captures that an enclosing graph defines (an enclosing
definition has a value whenever the operation holding the nested graph runs);
an operation fires when all its required inputs (implicit ones included) have
values, and firing gives values to its outputs. A captured name that no
enclosing graph defines stays undefined, and a name that a nested graph
assigns itself is not seeded from outside even when an enclosing graph also
defines it (that shadowing is a GRAPH-C1-SHADOWING fault). The fixpoint does not depend
on the order in which operations fire, so the verdict is exact.

This is also the "at least one assignment" half of constraint C1: a tensor
nobody assigns only matters when an output needs it, and then it shows here.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import LIMIT, brief, first
from ..model.index import GraphIndex, index
from ..model.structure import Definedness, Scope, definedness, scopes
from .base import CheckContext

ID = "GRAPH-C3"
SEVERITY = Severity.ERROR


def undefined_chain(ix: GraphIndex, d: Definedness, name: str) -> tuple[list[dict[str, Any]], str]:
    """Why ``name`` is undefined: follow a producer's first undefined input back to a root.

    Ends at a tensor that no operation assigns (``"no producer"``) or at a
    tensor already on the chain (``"cycle"``).
    """
    ops = ix.graph.operations
    steps: list[dict[str, Any]] = []
    seen: set[str] = set()
    cur = name
    while cur not in seen:
        seen.add(cur)
        producers = ix.producers(cur)
        if not producers:
            steps.append({"tensor": cur, "producer": None})
            return steps, "no producer"
        p = producers[0]
        missing = next((nm for nm in ix.inputs_of(p) if nm and not d.defined(nm)), None)
        if missing is None:
            raise AssertionError(f"operation {p} did not fire but all its inputs are defined")
        steps.append({"tensor": cur, "producer": {"index": p, "operation": ops[p].label}, "missing_input": missing})
        cur = missing
    steps.append({"tensor": cur, "producer": None, "repeats": True})
    return steps, "cycle"


def check(ctx: CheckContext) -> Verdict:
    found: list[tuple[int, Scope, str]] = []
    for i, sc in enumerate(scopes(ctx)):
        d = definedness(ctx, i)
        found.extend((i, sc, nm) for nm in d.undefined(list(dict.fromkeys(sc.graph.outputs))))
    if not found:
        return Verdict.proved(ID, SEVERITY)
    i, sc, name = found[0]
    steps, end = undefined_chain(index(ctx, sc.graph), definedness(ctx, i), name)
    root = steps[-1]["tensor"]
    shown = [f"{nm!r} (in {s.path})" for _, s, nm in found]
    return Verdict.violated(
        ID,
        Witness(
            f"{len(found)} graph output(s) never get a value: {brief(shown, 3)}; "
            f"{name!r} traces back to {root!r} ({end})",
            {
                "count": len(found),
                "undefined": [{"scope": s.path, "output": nm} for _, s, nm in first(found)],
                "chain_scope": sc.path,
                "chain": steps[:LIMIT],
                "chain_length": len(steps),
                "root": root,
                "ends": end,
            },
        ),
        SEVERITY,
    )
