"""Transfer functions of the interval domain, element-wise operators (spec/operators.rst, section 5.1).

One entry per operator in :data:`ELEMENTWISE`: given the ranges of an
operation's arguments (None for an omitted optional input) it returns one
range per output, and for an integer operation the exact result range when it
leaves the element type (the values then wrap; OP-ERROR-INT-OVERFLOW reads
it). Every float bound is rounded outward by :mod:`.intervals`; a function of
libm (exp, log, tanh, erf, sigmoid, pow) is widened by
:data:`~.intervals.TRANSCENDENTAL_ULPS` more. What each entry assumes is
stated beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from onnx import TensorProto

from ..model.graph import Operation
from .intervals import (
    TRANSCENDENTAL_ULPS,
    Exact,
    Range,
    exact,
    exact_down,
    exact_int,
    exact_up,
    float_result,
    hull,
    int_limits,
    is_float,
    is_int,
    of_type,
    top,
)

ULP = TRANSCENDENTAL_ULPS


@dataclass(frozen=True)
class Outcome:
    """What one operation's transfer function found: the output ranges, and an integer result that wraps."""

    outputs: list[Range]
    wraps: tuple[int, int] | None = None
    """The exact integer result range, when it exceeds the output type's range."""
    notes: dict[str, object] = field(default_factory=dict)


Args = Sequence[Range | None]
Transfer = Callable[[Operation, Args], Outcome]


def f64(fn: Callable[..., object], *xs: float) -> float:
    """``fn`` on float64 arguments with every floating-point exception silenced (infinities and NaN come back)."""
    with np.errstate(all="ignore"):
        return float(fn(*(np.float64(x) for x in xs)))  # type: ignore[arg-type]


def attr(op: Operation, name: str, default: object) -> object:
    a = op.attribute(name)
    return default if a is None else a.value


def _need(args: Args, n: int) -> list[Range] | None:
    got = [a for a in args[:n]]
    if len(got) < n or any(a is None for a in got):
        return None
    return [a for a in got if a is not None]


def _one(r: Range) -> Outcome:
    return Outcome([r])


def _unknown(elem: int) -> Outcome:
    return Outcome([top(elem)])


def add_sub(sign: int) -> Transfer:
    """A + B or A - B: the sum of the matching bounds (the other bound of B for A - B)."""

    def fn(op: Operation, args: Args) -> Outcome:
        ab = _need(args, 2)
        if ab is None:
            return _unknown(args[0].elem if args and args[0] else TensorProto.FLOAT)
        a, b = ab
        blo, bhi = (b.lo, b.hi) if sign > 0 else (-b.hi, -b.lo)
        if is_int(a.elem):
            r, wraps = exact_int(a.elem, int(a.lo + blo), int(a.hi + bhi))
            return Outcome([r], (int(a.lo + blo), int(a.hi + bhi)) if wraps else None)
        if not is_float(a.elem):
            return _unknown(a.elem)
        clash = (a.lo == -math.inf and bhi == math.inf) or (a.hi == math.inf and blo == -math.inf)
        if clash:
            return _one(Range(a.elem, -math.inf, math.inf, nan=True))
        lo, hi = exact(a.lo) + exact(blo), exact(a.hi) + exact(bhi)
        return _one(Range(a.elem, exact_down(lo, a.elem), exact_up(hi, a.elem), nan=a.nan or b.nan))

    return fn


def _products(a: Range, b: Range) -> list[Exact]:
    """The products of the bounds, exact; 0 * inf counts as 0 and as the infinity of the product's sign."""
    out: list[Exact] = []
    for x in (a.lo, a.hi):
        for y in (b.lo, b.hi):
            if math.isinf(x) or math.isinf(y):
                p = f64(np.multiply, x, y)
                out.extend([Fraction(0), math.copysign(math.inf, x) * math.copysign(1.0, y)] if math.isnan(p) else [p])
            else:
                out.append(Fraction(x) * Fraction(y))
    return out


def mul(op: Operation, args: Args) -> Outcome:
    """A * B: the extremes are among the products of the bounds (0 * inf counts as 0, as inf, and as NaN)."""
    ab = _need(args, 2)
    if ab is None:
        return _unknown(args[0].elem if args and args[0] else TensorProto.FLOAT)
    a, b = ab
    if is_int(a.elem):
        ps = [int(x) * int(y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        r, wraps = exact_int(a.elem, min(ps), max(ps))
        return Outcome([r], (min(ps), max(ps)) if wraps else None)
    if not is_float(a.elem):
        return _unknown(a.elem)
    inf_a, inf_b = math.isinf(a.lo) or math.isinf(a.hi), math.isinf(b.lo) or math.isinf(b.hi)
    zero_inf = (a.contains(0.0) and inf_b) or (b.contains(0.0) and inf_a)
    fs = _products(a, b)
    return _one(Range(a.elem, exact_down(min(fs), a.elem), exact_up(max(fs), a.elem), nan=a.nan or b.nan or zero_inf))


def _trunc_div_bounds(a: Range, b: Range) -> tuple[int, int]:
    """Bounds of integer A / B (truncated toward zero) over the divisors of B other than 0."""
    parts = [(lo, hi) for lo, hi in ((int(b.lo), min(int(b.hi), -1)), (max(int(b.lo), 1), int(b.hi))) if lo <= hi]
    qs: list[int] = []
    for lo, hi in parts:
        for x in (int(a.lo), int(a.hi)):
            for y in (lo, hi):
                q = abs(x) // abs(y)
                qs.append(q if (x >= 0) == (y > 0) else -q)
        if a.lo < 0 < a.hi:
            qs.append(0)
    return (min(qs), max(qs)) if qs else (0, 0)


def div(op: Operation, args: Args) -> Outcome:
    """A / B. Float: the quotients of the bounds when B excludes 0, every value when it may be 0. Integer:
    truncation toward zero over the non-zero divisors (a zero divisor is OP-ERROR-DIV-ZERO's concern)."""
    ab = _need(args, 2)
    if ab is None:
        return _unknown(args[0].elem if args and args[0] else TensorProto.FLOAT)
    a, b = ab
    if is_int(a.elem):
        lo, hi = _trunc_div_bounds(a, b)
        r, wraps = exact_int(a.elem, lo, hi)
        return Outcome([r], (lo, hi) if wraps else None)
    if not is_float(a.elem):
        return _unknown(a.elem)
    nan = a.nan or b.nan
    inf_a, inf_b = math.isinf(a.lo) or math.isinf(a.hi), math.isinf(b.lo) or math.isinf(b.hi)
    if b.contains(0.0):
        return _one(Range(a.elem, -math.inf, math.inf, nan=nan or a.contains(0.0) or (inf_a and inf_b)))
    qs = [f64(np.divide, x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    qs = [q for q in qs if not math.isnan(q)] + ([0.0] if inf_b else [])
    return _one(float_result(a.elem, qs, nan or (inf_a and inf_b)))


def monotone(fn: Callable[[np.float64], object], ulps: int = ULP, clamp: tuple[float, float] | None = None) -> Transfer:
    """A non-decreasing function of one float argument: its values at the bounds, widened by ``ulps``."""

    def transfer(op: Operation, args: Args) -> Outcome:
        x = args[0] if args else None
        if x is None or not is_float(x.elem):
            return _unknown(x.elem if x else TensorProto.FLOAT)
        lo, hi = f64(fn, x.lo), f64(fn, x.hi)
        r = float_result(x.elem, [lo, hi], x.nan, ulps)
        if clamp is not None and not r.nan:
            r = Range(x.elem, max(r.lo, clamp[0]), min(r.hi, clamp[1]), nan=r.nan)
        return _one(r)

    return transfer


def log(op: Operation, args: Args) -> Outcome:
    """Log: NaN below 0, -inf at 0 (and -0.0), increasing above."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem):
        return _unknown(x.elem if x else TensorProto.FLOAT)
    lo = -math.inf if x.lo <= 0 else f64(np.log, x.lo)
    hi = -math.inf if x.hi <= 0 else f64(np.log, x.hi)
    return _one(float_result(x.elem, [lo, hi], x.nan or x.lo < 0, ULP))


def sqrt(op: Operation, args: Args) -> Outcome:
    """Sqrt: NaN below 0 (not at -0.0), increasing from 0; correctly rounded in IEEE 754."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem):
        return _unknown(x.elem if x else TensorProto.FLOAT)
    lo, hi = f64(np.sqrt, max(x.lo, 0.0)), f64(np.sqrt, max(x.hi, 0.0))
    return _one(float_result(x.elem, [lo, hi], x.nan or x.lo < 0))


def exponents(b: Range) -> list[float] | None:
    """The distinct exponents of a constant exponent tensor with few of them, else None."""
    if b.value is None:
        return None
    values = np.unique(np.asarray(b.value, np.float64))
    return [float(v) for v in values] if values.size <= 16 else None


def pow_(op: Operation, args: Args) -> Outcome:
    """Pow. A base range above 0: x ** y is monotone in each argument, so the corners bound it. A constant
    exponent: each distinct exponent bounds the result at the base's bounds (and 0 inside for an even power);
    a negative base with a non-integer exponent gives NaN, 0 to a negative power inf. Else unknown."""
    ab = _need(args, 2)
    if ab is None or not is_float(ab[0].elem):
        return _unknown(args[0].elem if args and args[0] else TensorProto.FLOAT)
    a, b = ab
    nan = a.nan or b.nan
    if a.lo > 0:
        cands = [f64(np.power, x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        return _one(float_result(a.elem, [c for c in cands if not math.isnan(c)], nan, ULP))
    es = exponents(b)
    if es is None:
        return _unknown(a.elem)
    found: list[float] = []
    for e in es:
        found += [f64(np.power, max(a.lo, 0.0), e), f64(np.power, a.hi, e)] if a.hi >= 0 else []
        if a.lo < 0:
            if e != math.floor(e):
                nan = True
            else:
                found += [f64(np.power, a.lo, e), f64(np.power, min(a.hi, 0.0), e)]
        if a.contains(0.0):  # 0 and -0 to a negative power: an infinity of either sign
            found += [f64(np.power, 0.0, e)] + ([-math.inf, math.inf] if e < 0 else [])
    found = [c for c in found if not math.isnan(c)]
    if not found:
        return _one(Range(a.elem, -math.inf, math.inf, nan=True))
    return _one(float_result(a.elem, found, nan, ULP))


def neg(op: Operation, args: Args) -> Outcome:
    x = args[0] if args else None
    if x is None:
        return _unknown(TensorProto.FLOAT)
    if is_int(x.elem):
        r, wraps = exact_int(x.elem, -int(x.hi), -int(x.lo))
        return Outcome([r], (-int(x.hi), -int(x.lo)) if wraps else None)
    if not is_float(x.elem):
        return _unknown(x.elem)
    return _one(Range(x.elem, -x.hi, -x.lo, nan=x.nan))


def abs_(op: Operation, args: Args) -> Outcome:
    x = args[0] if args else None
    if x is None:
        return _unknown(TensorProto.FLOAT)
    lo = 0 if x.lo <= 0 <= x.hi else min(abs(x.lo), abs(x.hi))
    hi = max(abs(x.lo), abs(x.hi))
    if is_int(x.elem):
        r, wraps = exact_int(x.elem, int(lo), int(hi))
        return Outcome([r], (int(lo), int(hi)) if wraps else None)
    if not is_float(x.elem):
        return _unknown(x.elem)
    return _one(Range(x.elem, lo, hi, nan=x.nan))


def relu(op: Operation, args: Args) -> Outcome:
    x = args[0] if args else None
    if x is None or not (is_float(x.elem) or is_int(x.elem)):
        return _unknown(x.elem if x else TensorProto.FLOAT)
    zero: float | int = 0 if is_int(x.elem) else 0.0
    return _one(Range(x.elem, max(x.lo, zero), max(x.hi, zero), nan=x.nan))


def leaky_relu(op: Operation, args: Args) -> Outcome:
    """LeakyRelu: x above 0, alpha * x below (``alpha`` 0.01 by default)."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem):
        return _unknown(x.elem if x else TensorProto.FLOAT)
    alpha = float(attr(op, "alpha", float(np.float32(0.01))))  # type: ignore[arg-type]
    neg_part = Range(x.elem, min(x.lo, 0.0), min(x.hi, 0.0))
    scaled = mul(op, [neg_part, Range(x.elem, alpha, alpha)]).outputs[0]
    pos = Range(x.elem, max(x.lo, 0.0), max(x.hi, 0.0))
    return _one(hull(x.elem, [scaled, pos, Range(x.elem, 0.0, 0.0, nan=x.nan)]))


def clip(op: Operation, args: Args) -> Outcome:
    """Clip: min(max(x, lo), hi) on ranges (an omitted bound does not cut; before opset 11 the attributes)."""
    x = args[0] if args else None
    if x is None or not (is_float(x.elem) or is_int(x.elem)):
        return _unknown(x.elem if x else TensorProto.FLOAT)
    mn = args[1] if len(args) > 1 else None
    mx = args[2] if len(args) > 2 else None
    if op.attribute("min") is not None:
        v = float(attr(op, "min", 0.0))  # type: ignore[arg-type]
        mn = Range(x.elem, v, v)
    if op.attribute("max") is not None:
        v = float(attr(op, "max", 0.0))  # type: ignore[arg-type]
        mx = Range(x.elem, v, v)
    lo, hi = x.lo, x.hi
    if mn is not None:
        lo, hi = max(lo, mn.lo), max(hi, mn.hi)
    if mx is not None:
        lo, hi = min(lo, mx.lo), min(hi, mx.hi)
    nan = x.nan or bool(mn and mn.nan) or bool(mx and mx.nan)
    return _one(Range(x.elem, lo, hi, nan=nan))


def same_values(op: Operation, args: Args) -> Outcome:
    """An operator that only moves, copies or selects elements of its first input: the same range (Identity
    also keeps the exact value and shape)."""
    x = args[0] if args else None
    if x is None:
        return _unknown(TensorProto.FLOAT)
    if op.operator == "Identity":
        return _one(x)
    return _one(Range(x.elem, x.lo, x.hi, nan=x.nan, known=x.known))


def elementwise_hull(first: int = 0) -> Transfer:
    """Max, Min, Concat, Where's value inputs: an element is one of the arguments' (from index ``first``)."""

    def fn(op: Operation, args: Args) -> Outcome:
        parts = [a for a in args[first:] if a is not None]
        if not parts:
            return _unknown(TensorProto.FLOAT)
        if op.operator in ("Max", "Min") and len(parts) > 1:
            pick = max if op.operator == "Max" else min
            lo, hi = pick(p.lo for p in parts), pick(p.hi for p in parts)
            return _one(Range(parts[0].elem, lo, hi, nan=any(p.nan for p in parts)))
        return _one(hull(parts[0].elem, parts))

    return fn


def boolean(op: Operation, args: Args) -> Outcome:
    return _one(Range(TensorProto.BOOL, 0, 1))


def cast(op: Operation, args: Args) -> Outcome:
    """Cast to ``to``: a float range held in a narrower float is rounded outward; into an integer type, a range
    that fits is kept (truncated toward zero), one that does not wraps or is undefined (the whole type)."""
    x = args[0] if args else None
    to = int(attr(op, "to", 0))  # type: ignore[call-overload]
    if x is None or not (is_float(x.elem) or is_int(x.elem)) or not (is_float(to) or is_int(to)):
        return _unknown(to)
    if is_float(to):
        return _one(of_type(to, x.lo, x.hi, nan=x.nan))
    if to == TensorProto.BOOL:
        return _one(Range(to, 0 if x.contains(0) else 1, 0 if x.lo == x.hi == 0 else 1))
    if math.isinf(x.lo) or math.isinf(x.hi) or x.nan:
        return Outcome([top(to)], (int_limits(to)[0] - 1, int_limits(to)[1] + 1))
    lo, hi = math.trunc(x.lo), math.trunc(x.hi)
    r, wraps = exact_int(to, lo, hi)
    return Outcome([r], (lo, hi) if wraps else None)


def _sigmoid(x: np.float64) -> np.float64:
    return np.float64(1.0) / (np.float64(1.0) + np.exp(-x))


def _erf(x: np.float64) -> float:
    return math.erf(float(x))


ELEMENTWISE: dict[str, Transfer] = {
    "Abs": abs_,
    "Add": add_sub(1),
    "Sub": add_sub(-1),
    "Mul": mul,
    "Div": div,
    "Neg": neg,
    "Relu": relu,
    "LeakyRelu": leaky_relu,
    "Clip": clip,
    "Exp": monotone(np.exp, clamp=(0.0, math.inf)),
    "Log": log,
    "Sqrt": sqrt,
    "Pow": pow_,
    "Tanh": monotone(np.tanh, clamp=(-1.0, 1.0)),
    "Sigmoid": monotone(_sigmoid, clamp=(0.0, 1.0)),
    "Erf": monotone(_erf, clamp=(-1.0, 1.0)),
    "Floor": monotone(np.floor, 0),
    "Ceil": monotone(np.ceil, 0),
    "Max": elementwise_hull(),
    "Min": elementwise_hull(),
    "Less": boolean,
    "LessOrEqual": boolean,
    "Greater": boolean,
    "GreaterOrEqual": boolean,
    "Equal": boolean,
    "Not": boolean,
    "And": boolean,
    "Or": boolean,
    "Cast": cast,
    "Identity": same_values,
}
