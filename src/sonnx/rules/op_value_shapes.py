"""OP-VALUE-SHAPES (strict profile): no operation's output shape depends on the values of the graph inputs.

Spec rule OP-VALUE-SHAPES (spec/operators.rst, section 4), from the working
group's needs AI-009 (an upper bound of memory) and AI-010 (an upper bound of
execution time). The decision is the dataflow analysis of
:mod:`sonnx.rules.value_classes`: an operation is listed when an input that
fixes its output shape (the table ``shape_inputs.json``) is value-dependent,
or when it is a Loop whose number of iterations is. A case the analysis cannot
decide (an operator missing from the table, an If on a value-dependent
condition, an undefined input) leaves the verdict UNKNOWN with the reason,
unless an operation is already listed.
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict
from .base import PROFILE_STRICT, CheckContext, Listing, Rule, counted_reasons, open_or_proved
from .value_classes import analyse

ID = "OP-VALUE-SHAPES"
SEVERITY = Severity.ERROR


def _show(f: dict[str, Any]) -> str:
    return f"{f['operation']} (#{f['index']} in {f['scope']}): {f['cause']}, from {' <- '.join(f['chain'])}"


LISTING = Listing("operation(s) whose output shape depends on input values", "operations", _show, 3)


def check(ctx: CheckContext) -> Verdict:
    a = analyse(ctx.model)
    extra = {"classes": dict(a.counts), "undecided": counted_reasons(a.reasons)}
    if a.findings:
        return LISTING.verdict(a.findings, ID, SEVERITY, extra)
    return open_or_proved(ID, SEVERITY, "not decided", counted_reasons(a.reasons))


RULE = Rule(
    id=ID,
    severity=SEVERITY,
    profile=PROFILE_STRICT,
    check=check,
)
