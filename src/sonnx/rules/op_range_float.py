"""OP-RANGE-FLOAT (strict profile, warning): no float operation of the main graph turns finite values into inf or NaN.

Spec rule OP-RANGE-FLOAT (spec/operators.rst, section 5.3), REQ-OP-040,
REQ-OP-050 and AI-007. Each float operation's transfer function is applied
again to the finite part of its argument ranges (:func:`.intervals.finite_part`):
an output range that then reaches an infinity or NaN is a hazard, reported with
the argument ranges that reach it (for Exp, the threshold above which it
overflows). An operation without a transfer function is not established. A run
confirms a hazard when the operation wrote inf or NaN from finite arguments.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext, TrialRun
from .intervals import finite_part, float_max, is_float
from .intervals_graph import Site
from .intervals_linear import TRANSFERS
from .intervals_search import Hazard, decide, ranges_json, value

ID = "OP-RANGE-FLOAT"
SEVERITY = Severity.WARNING

STORED = frozenset({"Constant", "ConstantOfShape"})
"""Operators whose values come from the model's own attributes: an infinity there is written, not reached."""


def _confirm(site: Site) -> Callable[[TrialRun], str | None]:
    op = site.op

    def shown(run: TrialRun) -> str | None:
        args = [value(run, n) for n in op.input_mapping if n]
        outs = [value(run, n) for n in op.output_mapping if n]
        if any(a is None for a in args) or not outs or outs[0] is None:
            return None
        if any(np.issubdtype(a.dtype, np.floating) and not np.isfinite(a).all() for a in args if a is not None):
            return None
        y = outs[0]
        if not np.issubdtype(y.dtype, np.floating) or np.isfinite(y).all():
            return None
        bad = y[~np.isfinite(y)].flat[0]
        return f"finite arguments give {float(bad)!r}"

    return shown


def find(site: Site) -> Hazard | None:
    outs = site.outcome.outputs
    floats = [a for a in site.args if a is not None and is_float(a.elem)]
    if site.op.operator in STORED or not any(a is not None for a in site.args):
        return None  # its values are stored in the model, not computed from arguments
    if outs and not is_float(outs[0].elem):
        return None
    if not outs and not floats:
        return None
    fn = TRANSFERS.get(site.op.operator)
    if fn is not None and site.transfer:
        parts = [None if a is None else finite_part(a) for a in site.args]
        if any(a is not None and p is None for a, p in zip(site.args, parts, strict=True)):
            return None  # an argument that is never finite: the hazard is upstream
        with np.errstate(all="ignore"):
            y = fn(site.op, parts).outputs
        if not y or not is_float(y[0].elem) or y[0].finite:
            return None
        what = "can give an infinity or NaN from finite arguments"
    else:
        what = "the operation has no bound in the analysis"
    ranges = ranges_json(**{f"argument_{k}": a for k, a in enumerate(site.args)})
    if site.op.operator == "Exp" and floats:
        ranges["overflows_above"] = math.log(float_max(floats[0].elem))
    return Hazard(site, what, ranges, _confirm(site), tuple((n, 1e30) for n in site.op.input_mapping if n))


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, None, find)
