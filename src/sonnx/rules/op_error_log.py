"""OP-ERROR-LOG (strict profile): no Log of the main graph can receive an argument at or below 0.

Spec rule OP-ERROR-LOG (spec/operators.rst, section 5.2), the working group's
constraint [C2] of log.md (definition domain: every element of X is above 0),
AI-007 and REQ-OP-040. An argument below 0 gives NaN, an argument of 0 or -0
gives -inf; both are outside the real logarithm's domain, so both count.
"""

from __future__ import annotations

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext, TrialRun
from .intervals import is_float
from .intervals_graph import Site
from .intervals_search import Hazard, decide, ranges_json, value

ID = "OP-ERROR-LOG"
SEVERITY = Severity.ERROR
TAG = "log.md [C2]"


def find(site: Site) -> Hazard | None:
    x = site.args[0] if site.args else None
    if x is None or (is_float(x.elem) and x.known and x.lo > 0):
        return None
    if x.value is not None and np.all(np.asarray(x.value) > 0):
        return None
    arg, out = site.op.input_mapping[0], site.op.output_mapping[0]

    def shown(run: TrialRun) -> str | None:
        v, y = value(run, arg), value(run, out)
        if v is None or y is None or not np.any(v <= 0):
            return None
        bad = float(v[v <= 0].flat[0])
        return f"an argument element {bad!r} gives {float(np.log(np.float64(bad)) if bad < 0 else -np.inf)!r}"

    return Hazard(site, "the argument can be at or below 0", ranges_json(argument=x), shown,
                  ((arg, -1.0), (arg, 0.0)), TAG)


def check(ctx: CheckContext) -> Verdict:
    with np.errstate(all="ignore"):
        return decide(ctx, ID, SEVERITY, frozenset({"Log"}), find)
