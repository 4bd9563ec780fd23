"""GRAPH-OUTPUTS: the model has at least one output.

Seed statement (informal specification, seed 000, "Model"): a model has zero
or more inputs and at least one output. A model without an output computes
nothing anyone can observe. The rule applies to the main graph: nested graphs
have the outputs their operator's signature demands, which the loader and the
control-flow rules check.
"""

from __future__ import annotations

from ..base.verdict import Severity, Verdict, Witness
from .base import CheckContext

ID = "GRAPH-OUTPUTS"
SEVERITY = Severity.ERROR


def check(ctx: CheckContext) -> Verdict:
    g = ctx.model.graph
    if g.outputs:
        return Verdict.proved(ID, SEVERITY)
    return Verdict.violated(
        ID,
        Witness(
            f"the main graph {g.name!r} declares no output ({len(g.operations)} operation(s), "
            f"{len(g.inputs)} input(s))",
            {"graph": g.name, "operations": len(g.operations), "inputs": len(g.inputs)},
        ),
        SEVERITY,
    )
