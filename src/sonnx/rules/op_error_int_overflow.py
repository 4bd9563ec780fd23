"""OP-ERROR-INT-OVERFLOW (strict profile): no integer operation of the main graph can exceed its type's range.

Spec rule OP-ERROR-INT-OVERFLOW (spec/operators.rst, section 5.2), AI-007 and
REQ-OP-050. The interval analysis computes integer results exactly (Python
integers) before they are held in the output type; a result range that leaves
the type's range means the values can wrap (Add, Sub, Mul, Neg, Abs, Div of
the smallest value by -1) or the conversion is undefined (Cast of a float
outside the target type). An integer operation the analysis cannot bound
(MatMul, Conv, a reduction of integers) is not established. A run confirms an
overflow when the exact result of the run's arguments differs from the value
the operation wrote.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base.verdict import Severity, Verdict
from .base import CheckContext, TrialRun
from .intervals import int_limits, is_int
from .intervals_graph import Site
from .intervals_search import Hazard, decide, ranges_json, value

ID = "OP-ERROR-INT-OVERFLOW"
SEVERITY = Severity.ERROR

OPERATORS = frozenset({"Add", "Sub", "Mul", "Neg", "Abs", "Div", "Cast", "MatMul", "Gemm", "Conv", "ReduceSum",
                       "ReduceProd", "Sum", "CumSum", "MatMulInteger", "ConvInteger", "Pow"})


def _trunc_div(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


EXACT: dict[str, Callable[..., Any]] = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Neg": lambda a: -a,
    "Abs": abs,
    "Div": _trunc_div,
}
"""The exact integer result of each element-wise operator a run can confirm an overflow of."""


def _confirm(site: Site, elem: int) -> Callable[[TrialRun], str | None]:
    op = site.op
    lo, hi = int_limits(elem)

    def shown(run: TrialRun) -> str | None:
        out = value(run, op.output_mapping[0])
        args = [value(run, n) for n in op.input_mapping]
        if out is None or any(a is None for a in args):
            return None
        if op.operator == "Cast":
            x = np.asarray(args[0], np.float64)
            bad = np.isnan(x) | (np.trunc(x) < lo) | (np.trunc(x) > hi)
            return f"Cast of {float(x[bad].flat[0])!r} outside [{lo}, {hi}]" if bad.any() else None
        fn = EXACT.get(op.operator)
        if fn is None:
            return None
        wide = np.broadcast_arrays(*(np.asarray(a).astype(object) for a in args))
        exact = np.frompyfunc(fn, len(wide), 1)(*wide)
        flat_exact, flat_out = np.asarray(exact).reshape(-1), np.broadcast_to(out, np.shape(exact)).reshape(-1)
        for e, o in zip(flat_exact, flat_out, strict=True):
            if e is not None and (e < lo or e > hi):
                return f"exact result {e} is held as {int(o)} (outside [{lo}, {hi}])"
        return None

    return shown


def _unconfirmable(run: TrialRun) -> str | None:
    """An operation whose output type the analysis does not know: no run value can show that it wrapped."""
    del run
    return None


def find(site: Site) -> Hazard | None:
    outs = site.outcome.outputs
    elem = outs[0].elem if outs else 0
    if not is_int(elem) and site.transfer:
        return None
    if site.transfer and outs[0].known and site.outcome.wraps is None:
        return None
    if not site.transfer and not any(a is not None and is_int(a.elem) for a in site.args):
        return None
    ranges = ranges_json(**{f"argument_{k}": a for k, a in enumerate(site.args)})
    if site.outcome.wraps is not None:
        ranges["exact_result"] = {"lo": site.outcome.wraps[0], "hi": site.outcome.wraps[1]}
        what = f"the exact result can leave the range of its type [{int_limits(elem)[0]}, {int_limits(elem)[1]}]"
    else:
        what = "the integer result is not bounded by the analysis"
    targets = tuple((n, v) for n in site.op.input_mapping if n for v in (math.inf, -math.inf, -1))
    return Hazard(site, what, ranges, _confirm(site, elem) if is_int(elem) else _unconfirmable, targets)


def check(ctx: CheckContext) -> Verdict:
    return decide(ctx, ID, SEVERITY, OPERATORS, find)
