"""The interval domain of the error-condition rules: one range of values per tensor.

Spec section 5.1 of spec/operators.rst. A :class:`Range` bounds every element
of a tensor by ``[lo, hi]`` and says whether an element may be NaN. Integer
bounds are Python integers, so integer arithmetic on them is exact; a result
outside the element type's range is seen before it wraps (OP-ERROR-INT-OVERFLOW).
Float bounds are Python floats that are values of the tensor's element type;
every bound an operation computes is rounded outward (:func:`down`, :func:`up`):
one step of float64 away from the result NumPy gave, then to the nearest value
of the element type on the outer side. A bound past the type's largest finite
value becomes an infinity, and an infinite bound means that infinity may occur.
This keeps each range a superset of what the kernels can compute, whatever
rounding the kernel itself performs on the way (spec 5.1, soundness).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from onnx import TensorProto

Number = int | float

FLOAT_TYPES: dict[int, Any] = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
}
"""The float element types the domain bounds; any other float type (bfloat16, float8) is left unknown."""

INT_TYPES: dict[int, Any] = {
    TensorProto.INT8: np.int8,
    TensorProto.UINT8: np.uint8,
    TensorProto.INT16: np.int16,
    TensorProto.UINT16: np.uint16,
    TensorProto.INT32: np.int32,
    TensorProto.UINT32: np.uint32,
    TensorProto.INT64: np.int64,
    TensorProto.UINT64: np.uint64,
    TensorProto.BOOL: np.bool_,
}

TRANSCENDENTAL_ULPS = 4
"""How many units in the last place of the element type a non-basic function (exp, log, tanh, erf...) may be
off in NumPy: its bounds are widened by this many steps beyond the outward rounding."""


def is_float(elem: int) -> bool:
    return elem in FLOAT_TYPES


def is_int(elem: int) -> bool:
    return elem in INT_TYPES


def int_limits(elem: int) -> tuple[int, int]:
    """The smallest and largest value of an integer element type (bool: 0 and 1)."""
    if elem == TensorProto.BOOL:
        return 0, 1
    info = np.iinfo(INT_TYPES[elem])
    return int(info.min), int(info.max)


def float_max(elem: int) -> float:
    return float(np.finfo(FLOAT_TYPES[elem]).max)


def _step(x: float, toward: float, elem: int) -> float:
    dtype = FLOAT_TYPES[elem]
    return float(np.nextafter(dtype(x), dtype(toward)))


def down(x: float, elem: int, ulps: int = 0) -> float:
    """A value of type ``elem`` at or below ``x``, with ``x`` first moved one float64 step down (outward rounding)."""
    if math.isnan(x):
        return -math.inf
    if math.isinf(x):
        return x
    x64 = math.nextafter(x, -math.inf)
    if x64 < -float_max(elem):
        return -math.inf
    with np.errstate(over="ignore"):
        v = float(FLOAT_TYPES[elem](x64))
    if v > x64:
        v = _step(v, -math.inf, elem)
    for _ in range(ulps):
        v = _step(v, -math.inf, elem)
    return v


def up(x: float, elem: int, ulps: int = 0) -> float:
    """A value of type ``elem`` at or above ``x``, with ``x`` first moved one float64 step up (outward rounding)."""
    return -down(-x, elem, ulps)


Exact = Fraction | float
"""A bound computed exactly (a fraction), or an infinity."""


def exact(x: Number) -> Exact:
    return x if isinstance(x, float) and math.isinf(x) else Fraction(x)


def exact_down(q: Exact, elem: int) -> float:
    """The greatest value of type ``elem`` (or -inf) at or below the exact number ``q``: no rounding step is lost."""
    if isinstance(q, float):
        return q
    m = float_max(elem)
    if q > Fraction(m):
        return m
    if q < -Fraction(m):
        return -math.inf
    dtype = FLOAT_TYPES[elem]
    with np.errstate(over="ignore"):
        v = float(dtype(float(q)))
    if Fraction(v) > q:
        v = _step(v, -math.inf, elem)
    return v


def exact_up(q: Exact, elem: int) -> float:
    """The least value of type ``elem`` (or inf) at or above the exact number ``q``."""
    return -exact_down(-q, elem)


@dataclass(frozen=True)
class Range:
    """What every element of one tensor can be: within ``[lo, hi]``, or NaN when ``nan``.

    ``value`` is the exact value when the tensor is a constant (an initial
    value or a Constant's); ``shape`` is the shape when it is fixed by a fact
    that holds at run time (a constant's, an enforced graph input type's).
    ``known`` is False for a tensor the domain does not bound (an element
    type it does not handle, an operation without a transfer function).
    """

    elem: int
    lo: Number
    hi: Number
    nan: bool = False
    value: np.ndarray | None = None
    shape: tuple[int, ...] | None = None
    known: bool = True

    def __post_init__(self) -> None:
        if not (self.lo <= self.hi):
            raise ValueError(f"empty range [{self.lo}, {self.hi}]")

    @property
    def finite(self) -> bool:
        return not self.nan and not math.isinf(self.lo) and not math.isinf(self.hi)

    def contains(self, x: Number) -> bool:
        return self.lo <= x <= self.hi

    def show(self) -> str:
        return f"[{_num(self.lo)}, {_num(self.hi)}]" + (" or NaN" if self.nan else "")

    def to_json(self) -> dict[str, Any]:
        return {"lo": _num(self.lo), "hi": _num(self.hi), "nan": self.nan}


def _num(x: Number) -> Any:
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def top(elem: int, shape: tuple[int, ...] | None = None) -> Range:
    """Any value of the element type: NaN and both infinities for a float, the whole range for an integer."""
    if is_int(elem):
        lo, hi = int_limits(elem)
        return Range(elem, lo, hi, shape=shape, known=False)
    return Range(elem, -math.inf, math.inf, nan=True, shape=shape, known=False)


def of_type(elem: int, lo: Number, hi: Number, nan: bool = False, shape: tuple[int, ...] | None = None) -> Range:
    """The range ``[lo, hi]`` in type ``elem``: float bounds rounded outward, integer bounds clamped to the type."""
    if is_float(elem):
        return Range(elem, down(float(lo), elem), up(float(hi), elem), nan=nan, shape=shape)
    if is_int(elem):
        tlo, thi = int_limits(elem)
        return Range(elem, max(tlo, math.floor(lo)), min(thi, math.ceil(hi)), shape=shape)
    return top(elem, shape)


def of_value(elem: int, value: np.ndarray) -> Range:
    """The exact range of a stored value (its minimum and maximum as the loader read them)."""
    arr = np.asarray(value)
    shape = tuple(int(d) for d in arr.shape)
    if arr.size == 0:
        return Range(elem, 0, 0, value=arr, shape=shape) if (is_int(elem) or is_float(elem)) else top(elem, shape)
    if is_int(elem):
        return Range(elem, int(arr.min()), int(arr.max()), value=arr, shape=shape)
    if is_float(elem):
        nan = bool(np.isnan(arr).any())
        body = arr[~np.isnan(arr)] if nan else arr
        if body.size == 0:
            return Range(elem, -math.inf, math.inf, nan=True, value=arr, shape=shape)
        return Range(elem, float(body.min()), float(body.max()), nan=nan, value=arr, shape=shape)
    return top(elem, shape)


def finite_part(r: Range) -> Range | None:
    """The finite, non-NaN values of ``r`` (None when it has none): the arguments of a hazard (spec 5.3)."""
    if not is_float(r.elem):
        return r
    m = float_max(r.elem)
    lo, hi = max(float(r.lo), -m), min(float(r.hi), m)
    if lo > hi:
        return None
    return Range(r.elem, lo, hi, value=r.value if r.finite else None, shape=r.shape, known=r.known)


def hull(elem: int, parts: list[Range], shape: tuple[int, ...] | None = None) -> Range:
    """The smallest range holding every one of ``parts`` (all of type ``elem``)."""
    if not parts:
        return top(elem, shape)
    return Range(elem, min(p.lo for p in parts), max(p.hi for p in parts), nan=any(p.nan for p in parts),
                 shape=shape, known=all(p.known for p in parts))


def exact_int(elem: int, lo: int, hi: int, shape: tuple[int, ...] | None = None) -> tuple[Range, bool]:
    """An integer result ``[lo, hi]`` as the type holds it, and whether it can leave the type's range (wrap)."""
    tlo, thi = int_limits(elem)
    if tlo <= lo and hi <= thi:
        return Range(elem, lo, hi, shape=shape), False
    return Range(elem, tlo, thi, shape=shape), True


def float_result(elem: int, cands: list[float], nan: bool, ulps: int = 0,
                 shape: tuple[int, ...] | None = None) -> Range:
    """The outward-rounded range of a float result whose extreme values are among ``cands``.

    A NaN among the candidates (such as inf - inf) means NaN may occur; the
    range then spans every value.
    """
    if any(math.isnan(c) for c in cands) or not cands:
        return Range(elem, -math.inf, math.inf, nan=True, shape=shape)
    return Range(elem, down(min(cands), elem, ulps), up(max(cands), elem, ulps), nan=nan, shape=shape)
