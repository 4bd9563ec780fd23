"""OP-ERROR-POW (strict profile): no Pow of the main graph can leave the power's domain.

Spec rule OP-ERROR-POW (spec/operators.rst, section 5.2), AI-007 and
REQ-OP-040; pow.md states no tagged domain constraint, its error-conditions
section leaves out-of-domain inputs undefined. The domain errors are a
negative base with a non-integer exponent (NaN), a zero base with a negative
exponent (inf), and an integer base with a negative exponent (no integer
result; sonnx's kernel refuses it). A constant exponent is read value by value.
"""

from __future__ import annotations

import math

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext, TrialRun
from .intervals import Range, is_float, is_int
from .intervals_graph import Site
from .intervals_ops import exponents
from .intervals_search import Hazard, decide, ranges_json, value

ID = "OP-ERROR-POW"
SEVERITY = Severity.ERROR


def _possible(a: Range, b: Range) -> str | None:
    es = exponents(b)
    negative_exp = (min(es) < 0) if es is not None else b.lo < 0
    if is_int(a.elem):
        return "an integer base can meet a negative exponent" if negative_exp or not b.known else None
    fractional = any(e != math.floor(e) for e in es) if es is not None else not (
        b.lo == b.hi and math.isfinite(b.lo) and b.lo == math.floor(b.lo))
    if not (a.known and b.known):
        return "the base's or the exponent's range is unknown"
    if a.lo < 0 and fractional:
        return "a negative base can meet a non-integer exponent"
    if a.contains(0) and negative_exp:
        return "a zero base can meet a negative exponent"
    return None


def _bad(v: np.ndarray, e: np.ndarray) -> np.ndarray:
    v, e = np.broadcast_arrays(np.asarray(v, np.float64), np.asarray(e, np.float64))
    with np.errstate(all="ignore"):
        return ((v < 0) & (e != np.floor(e))) | ((v == 0) & (e < 0))


def find(site: Site) -> Hazard | None:
    if len(site.args) < 2 or site.args[0] is None or site.args[1] is None:
        return None
    a, b = site.args[0], site.args[1]
    if not (is_float(a.elem) or is_int(a.elem)):
        what: str | None = "the base's type is not bounded"
    else:
        what = _possible(a, b)
    if what is None:
        return None
    base, exp = site.op.input_mapping[0], site.op.input_mapping[1]
    integer = is_int(a.elem)

    def shown(run: TrialRun) -> str | None:
        if run.operation == site.index and run.error:
            return f"the run stopped there: {run.error}"
        v, e = value(run, base), value(run, exp)
        if v is None or e is None or integer or value(run, site.op.output_mapping[0]) is None:
            return None
        bad = _bad(v, e)
        if not bad.any():
            return None
        vb, eb = (np.broadcast_to(np.asarray(x, np.float64), bad.shape)[bad].flat[0] for x in (v, e))
        return f"base {float(vb)!r} to the power {float(eb)!r}"

    targets = ((base, -1.0), (base, 0.0), (exp, 0.5), (exp, -1.0))
    return Hazard(site, what, ranges_json(base=a, exponent=b), shown, targets)


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, frozenset({"Pow"}), find)
