"""OP-VALUE-SHAPES (strict profile): no operation's output shape depends on the values of the graph inputs.

Spec rule OP-VALUE-SHAPES (spec/operators.rst, section 4), from the working
group's needs AI-009 (an upper bound of memory) and AI-010 (an upper bound of
execution time). The decision is the dataflow analysis of
:mod:`sonnx.rules.value_classes`: an operation is listed when an input that
fixes its output shape (the table ``shape_inputs.json``) is value-dependent,
or when it is a Loop whose number of iterations is. An If on a value-dependent
condition passes when onnx's derived types give both branches the same static
shapes. A case the analysis cannot decide (an operator missing from the table,
such an If whose branch shapes are not established, an undefined input) leaves
the verdict UNKNOWN with the reason, unless an operation is already listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base.verdict import Severity, Verdict
from ..model.graph import Graph
from ..model.structure import walk_scopes
from .base import CheckContext, Listing, counted_reasons, open_or_proved
from .derived import derived_model
from .value_classes import analyse

ID = "OP-VALUE-SHAPES"
SEVERITY = Severity.ERROR


def _show(f: dict[str, Any]) -> str:
    return f"{f['operation']} (#{f['index']} in {f['scope']}): {f['cause']}, from {' <- '.join(f['chain'])}"


LISTING = Listing("operation(s) whose output shape depends on input values", "operations", _show, 3)


def branches_agree(ctx: CheckContext) -> Callable[[str, int], tuple[bool | None, str]]:
    """Whether an ``If``'s branches give each output one static shape, by the types onnx derives (spec 9.4).

    Only integer dimensions establish it: equal in both branches, the shapes agree; a different rank or integer
    size at one position, they differ; a symbolic or missing dimension leaves it open. The derived types rest on
    the graph inputs' declared types and the stored values alone.
    """

    theirs: dict[str, Graph] = {}

    def agree(scope: str, j: int) -> tuple[bool | None, str]:
        model, why = derived_model(ctx)
        if model is None:
            return None, f"{why}, so the shapes its branches give are not compared"
        if not theirs:  # the derived model's scopes, walked once
            theirs.update((s.path, s.graph) for s in walk_scopes(model.graph))
        g = theirs.get(scope)
        op = g.operations[j] if g is not None and j < len(g.operations) else None
        subs = dict(op.subgraphs) if op is not None and op.operator == "If" else {}
        then, other = subs.get("then_branch"), subs.get("else_branch")
        if then is None or other is None:
            return None, "the file read again does not hold it"
        answer: tuple[bool | None, str] = (True, "")
        for k, (x, y) in enumerate(zip(then.outputs, other.outputs, strict=False)):
            tx, ty = then.tensor(x).type, other.tensor(y).type
            sx, sy = (None if t is None else t.shape for t in (tx, ty))
            static = sx is not None and sy is not None and all(isinstance(d, int) for d in (*sx, *sy))
            if static and sx != sy:
                return False, f"shapes {list(sx or ())} and {list(sy or ())} of its output {k}"
            if not static:
                answer = (None, f"onnx's inference gives its output {k} no static shape in both branches")
        return answer

    return agree


def check(ctx: CheckContext) -> Verdict:
    a = analyse(ctx.model, branches_agree(ctx))
    extra = {"classes": dict(a.counts), "undecided": counted_reasons(a.reasons)}
    if a.findings:
        return LISTING.verdict(a.findings, ID, SEVERITY, extra)
    return open_or_proved(ID, SEVERITY, "not decided", counted_reasons(a.reasons))
