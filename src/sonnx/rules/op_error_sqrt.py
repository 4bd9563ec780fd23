"""OP-ERROR-SQRT (strict profile): no Sqrt of the main graph can receive an argument below 0.

Spec rule OP-ERROR-SQRT (spec/operators.rst, section 5.2), the working
group's constraint [C2] of sqrt.md (definition domain: every element of X is
at least 0), AI-007 and REQ-OP-040. -0 is not below 0 (its root is -0).
"""

from __future__ import annotations

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext, TrialRun
from .intervals import is_float
from .intervals_graph import Site
from .intervals_search import Hazard, decide, ranges_json, value

ID = "OP-ERROR-SQRT"
SEVERITY = Severity.ERROR
TAG = "sqrt.md [C2]"


def find(site: Site) -> Hazard | None:
    x = site.args[0] if site.args else None
    if x is None or (is_float(x.elem) and x.known and x.lo >= 0):
        return None
    if x.value is not None and np.all(np.asarray(x.value) >= 0):
        return None
    arg, out = site.op.input_mapping[0], site.op.output_mapping[0]

    def shown(run: TrialRun) -> str | None:
        v, y = value(run, arg), value(run, out)
        if v is None or y is None or not np.any(v < 0) or not np.isnan(y).any():
            return None
        return f"an argument element {float(v[v < 0].flat[0])!r} gives NaN"

    return Hazard(site, "the argument can be below 0", ranges_json(argument=x), shown, ((arg, -1.0),), TAG)


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, frozenset({"Sqrt"}), find)
