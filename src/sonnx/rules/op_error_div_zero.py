"""OP-ERROR-DIV-ZERO (strict profile): no integer Div of the main graph can meet a divisor of 0.

Spec rule OP-ERROR-DIV-ZERO (spec/operators.rst, section 5.2), the working
group's E_DIV_INT_CONSTR_B_0030 (div.md: every element of B differs from 0),
AI-007 and REQ-OP-040. Decided by the interval analysis (:mod:`.intervals_graph`):
a divisor that is a constant is read element by element, a computed one by its
range; a divisor range that holds 0 is searched and confirmed by a run that
stops at that Div (:mod:`.intervals_search`).
"""

from __future__ import annotations

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext
from .intervals import is_float
from .intervals_graph import Site
from .intervals_search import Hazard, decide, raised_at, ranges_json

ID = "OP-ERROR-DIV-ZERO"
SEVERITY = Severity.ERROR
TAG = "E_DIV_INT_CONSTR_B_0030"


def find(site: Site) -> Hazard | None:
    if len(site.args) < 2 or site.args[1] is None:
        return None
    b = site.args[1]
    if is_float(b.elem):
        return None
    if b.value is not None and np.all(np.asarray(b.value) != 0):
        return None
    if b.value is None and b.known and not b.contains(0):
        return None
    what = "the divisor can be 0" if b.known else "the divisor's type or range is unknown"
    return Hazard(site, what, ranges_json(divisor=b), raised_at(site), ((site.op.input_mapping[1], 0),), TAG)


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, frozenset({"Div"}), find)
