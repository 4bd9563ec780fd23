"""Error figures between two arrays that should hold the same tensor.

A cross-check (and an equivalence check after a rewrite) must not stop at
"equal" or "not equal": a safety engineer needs the size of a difference to
judge it. :func:`compare_arrays` gives, for one output:

* the largest absolute error ``|actual - expected|``;
* the largest relative error ``|actual - expected| / |expected|`` (infinite
  when the expected value is zero and the actual one is not);
* the largest ULP distance, counted on the dtype's integer representation
  (float16, float32, float64; None for integers and booleans, which are
  compared exactly and whose absolute error already counts units);
* how many elements lie outside the tolerance, and the indices of the worst.

Tolerance policy (the record :class:`~sonnx.differential.tolerance.Tolerance`):
a floating-point element is within tolerance when it equals the expected
value, or ``|a - e| <= atol + rtol * |e|``, or its ULP distance is at most
``ulp``. Two NaNs in the same place are equal; NaN against a number is always
outside, and so is an infinity against anything but the same infinity.
Integers and booleans are compared exactly. Defaults depend on the dtype
(:data:`~sonnx.differential.tolerance.DEFAULT_TOLERANCES`); every field of a
``Tolerance`` that is not None overrides the default.

A named policy (``Tolerance.policy``, ``--tolerance``) replaces those figures:
``default`` is the policy above; ``sonnx-wg`` is the working group's test
policy (spec/operators.rst, section 6), which gives each output a tolerance
of its own from the operations it depends on
(:mod:`sonnx.differential.wg_tolerance`). Its figures combine differently:
a float element is within tolerance when it equals the expected value or
when *every* criterion the policy states for its dtype holds
(``ResolvedTolerance.all_of``), as the group's "max(abs_err, rel_err,
ulp_err)" is read in that section.

A comparison may also be given a step tolerance for one output
(:class:`~sonnx.differential.quant.StepTolerance`, asked for with
``Tolerance.quant_steps``): a float element is then also within tolerance
when ``|a - e|`` is at most its allowed number of quantization steps plus
``atol + rtol * |e|`` (a dequantized value is itself a rounded float), and an
integer element (a QuantizeLinear output) when it is at most that many units
away. The step is recorded with the figures, so a report says which outputs
had one and how large it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .quant import StepTolerance
from .tolerance import ResolvedTolerance, Tolerance

WORST_COUNT = 5
"""How many worst elements a comparison lists by default."""


def _json_float(x: float | None) -> float | str | None:
    """A float for JSON: non-finite values as the strings ``inf``, ``-inf``, ``nan``."""
    if x is None:
        return None
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def _json_scalar(x: Any) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    return _json_float(float(x))


@dataclass(frozen=True)
class WorstElement:
    """One element of the comparison, among the worst."""

    index: tuple[int, ...]
    expected: Any
    actual: Any
    abs_error: float
    ulp: int | None
    within: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "index": list(self.index),
            "expected": _json_scalar(self.expected),
            "actual": _json_scalar(self.actual),
            "abs_error": _json_float(self.abs_error),
            "ulp": self.ulp,
            "within": self.within,
        }


@dataclass(frozen=True)
class OutputComparison:
    """The figures of one compared output.

    When the dtypes or shapes differ, ``mismatch`` says how and the error
    figures are None: the arrays cannot be compared element by element, and
    the comparison is outside tolerance.
    """

    expected_dtype: str
    actual_dtype: str
    expected_shape: tuple[int, ...]
    actual_shape: tuple[int, ...]
    tolerance: ResolvedTolerance
    mismatch: str | None = None
    elements: int = 0
    max_abs: float | None = None
    max_rel: float | None = None
    max_ulp: int | None = None
    outside: int = 0
    nan_mismatches: int = 0
    """Elements where exactly one side is NaN (counted in ``outside``)."""
    worst: list[WorstElement] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the arrays are comparable and every element is within tolerance."""
        return self.mismatch is None and self.outside == 0

    def summary(self) -> str:
        """One line: the figures, or the mismatch."""
        if self.mismatch is not None:
            return f"not comparable: {self.mismatch}"
        ulp = "n/a" if self.max_ulp is None else str(self.max_ulp)
        step = "" if self.tolerance.step is None else f" (tolerance {self.tolerance.step.describe()})"
        if self.tolerance.policy:
            step += f" [{self.tolerance.policy}]"
        return (
            f"max abs {_fmt(self.max_abs)}, max rel {_fmt(self.max_rel)}, max ulp {ulp}, "
            f"{self.outside}/{self.elements} outside tolerance{step}"
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready figures with a fixed key order."""
        return {
            "ok": self.ok,
            "mismatch": self.mismatch,
            "expected": {"dtype": self.expected_dtype, "shape": list(self.expected_shape)},
            "actual": {"dtype": self.actual_dtype, "shape": list(self.actual_shape)},
            "tolerance": self.tolerance.to_json(),
            "elements": self.elements,
            "max_abs": _json_float(self.max_abs),
            "max_rel": _json_float(self.max_rel),
            "max_ulp": self.max_ulp,
            "outside": self.outside,
            "nan_mismatches": self.nan_mismatches,
            "worst": [w.to_json() for w in self.worst],
        }


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3g}"


_FLOAT_BITS = {
    "float16": (np.int16, 0x7FFF),
    "float32": (np.int32, 0x7FFFFFFF),
    "float64": (np.int64, 0x7FFFFFFFFFFFFFFF),
}


def _ordered_bits(x: np.ndarray) -> np.ndarray:
    """IEEE floats mapped monotonically to int64: x < y iff map(x) < map(y); +0 and -0 both map to 0."""
    int_type, magnitude_mask = _FLOAT_BITS[x.dtype.name]
    bits = x.view(int_type).astype(np.int64)
    magnitude = bits & magnitude_mask
    return np.where(bits < 0, -magnitude, magnitude)


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Element-wise ULP distance of two float arrays of one dtype (uint64; NaN positions are meaningless)."""
    a = _ordered_bits(np.ascontiguousarray(expected))
    b = _ordered_bits(np.ascontiguousarray(actual))
    same_sign = (a >= 0) == (b >= 0)
    # Same sign: the difference fits in int64. Opposite signs: |a| + |b| fits in uint64.
    diff_same = np.abs(np.where(same_sign, a - np.where(same_sign, b, 0), 0)).astype(np.uint64)
    diff_cross = np.abs(a).astype(np.uint64) + np.abs(b).astype(np.uint64)
    return np.where(same_sign, diff_same, diff_cross)


def flatten(value: Any) -> tuple[np.ndarray, str]:
    """A value as one array plus a description of its structure (equal structures compare element by element).

    A tensor is itself; a sequence of tensors of one dtype is their
    concatenation, described by the shapes; a map is its values in key order,
    described by the keys; a sequence of maps (ZipMap's output) is one row per
    map. The description names every key and shape, so two values compare
    element by element only when their structures are the same.
    """
    if isinstance(value, dict):
        keys = sorted(value)
        arr = np.asarray([value[k] for k in keys])
        return arr, f"map with keys {keys}"
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            keys = sorted(value[0])
            if any(sorted(v) != keys for v in value):
                return np.asarray([], dtype=np.float64), f"sequence of {len(value)} maps with differing keys"
            return np.asarray([[v[k] for k in keys] for v in value]), f"sequence of {len(value)} maps, keys {keys}"
        parts = [np.asarray(v) for v in value]
        dtypes = {p.dtype.name for p in parts}
        if len(dtypes) > 1:
            return np.asarray([], dtype=np.float64), f"sequence of {len(parts)} tensors of types {sorted(dtypes)}"
        shapes = [list(p.shape) for p in parts]
        flat = np.concatenate([p.ravel() for p in parts]) if parts else np.asarray([], dtype=np.float32)
        return flat, f"sequence of {len(parts)} tensors of shapes {shapes}"
    if value is None:
        return np.asarray([], dtype=np.float32), "empty optional"
    return np.asarray(value), ""


def _untyped(value: Any) -> bool:
    """Whether a map (or sequence of maps) holds plain Python numbers rather than NumPy values."""
    maps = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    values = [v for m in maps if isinstance(m, dict) for v in m.values()]
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, np.generic) for v in values)


def compare_arrays(
    expected: Any,
    actual: Any,
    tolerance: Tolerance | None = None,
    worst: int = WORST_COUNT,
    step: StepTolerance | None = None,
    resolved: ResolvedTolerance | None = None,
) -> OutputComparison:
    """Compare ``actual`` against ``expected`` element by element; see the module docstring.

    Sequences, maps and sequences of maps compare through :func:`flatten`:
    their structures must be the same, then their elements are compared as
    one array (indices of the worst elements are positions in that array).
    Strings compare exactly. ``step`` is this output's tolerance in
    quantization steps, if it has one; it applies to tensors of numbers only. ``resolved`` is this output's
    tolerance under a named policy (it replaces ``tolerance``'s figures for the output's dtype).
    """
    e, e_layout = flatten(expected)
    a, a_layout = flatten(actual)
    # Map values a runtime hands back as Python numbers carry no element type: read them in the other side's.
    if e_layout and e.dtype != a.dtype and _untyped(expected) and not _untyped(actual):
        e = e.astype(a.dtype)
    # A string tensor is held as NumPy unicode by onnx's reference evaluator and as objects by the others.
    if e.dtype.kind in "OU" and a.dtype.kind in "OU" and e.dtype != a.dtype:
        e, a = e.astype(object), a.astype(object)
    tol = (tolerance or Tolerance()).for_dtype(e.dtype) if resolved is None else resolved
    if step is not None and not e_layout and e.dtype.kind in ("iu" if step.integer else "f"):
        tol = ResolvedTolerance(tol.atol, tol.rtol, tol.ulp, tol.exact, step, tol.all_of, tol.policy)
    head: dict[str, Any] = {
        "expected_dtype": e.dtype.name,
        "actual_dtype": a.dtype.name,
        "expected_shape": tuple(int(d) for d in e.shape),
        "actual_shape": tuple(int(d) for d in a.shape),
        "tolerance": tol,
    }
    if e_layout != a_layout:
        shown = (e_layout or "a tensor", a_layout or "a tensor")
        return OutputComparison(**head, mismatch=f"{shown[0]} expected, {shown[1]} obtained")
    if e.dtype != a.dtype:
        return OutputComparison(**head, mismatch=f"dtype {e.dtype.name} expected, {a.dtype.name} obtained")
    if e.shape != a.shape:
        return OutputComparison(**head, mismatch=f"shape {list(e.shape)} expected, {list(a.shape)} obtained")
    if e.dtype.kind in "OUS":
        unequal = int(np.count_nonzero(e != a))
        return OutputComparison(**head, elements=int(e.size), outside=unequal)
    if e.dtype.kind not in "biuf":
        return OutputComparison(**head, mismatch=f"dtype {e.dtype.name} cannot be compared numerically")
    if e.size == 0:
        return OutputComparison(**head, elements=0, max_abs=0.0, max_rel=0.0, max_ulp=0)
    if tol.step is not None and tol.step.bound(e.shape) is None:
        return OutputComparison(**head, mismatch=f"the step tolerance of {tol.step.writer} does not fit shape "
                                f"{list(e.shape)}")
    return _compare_values(e, a, tol, head, worst)


def _compare_values(
    e: np.ndarray, a: np.ndarray, tol: ResolvedTolerance, head: dict[str, Any], worst: int
) -> OutputComparison:
    is_float = e.dtype.kind == "f"
    ef = e.astype(np.float64)
    af = a.astype(np.float64)
    if is_float:
        e_nan, a_nan = np.isnan(ef), np.isnan(af)
        equal = (ef == af) | (e_nan & a_nan)
        nan_mismatch = e_nan ^ a_nan
    else:
        equal = e == a
        nan_mismatch = np.zeros(e.shape, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_err = np.where(equal, 0.0, np.abs(af - ef))
        rel_err = np.where(equal, 0.0, abs_err / np.abs(ef))
    abs_err = np.where(nan_mismatch, np.nan, abs_err)
    rel_err = np.where(nan_mismatch, np.nan, rel_err)
    ulps: np.ndarray | None = None
    if is_float and e.dtype.name in _FLOAT_BITS:
        ulps = np.where(equal | nan_mismatch, np.uint64(0), ulp_distance(e, a))
    steps = None if tol.step is None else tol.step.bound(e.shape)
    if tol.exact:
        within = equal if steps is None else equal | (abs_err <= steps)
    else:
        finite = np.isfinite(ef) & np.isfinite(af)
        close = _close(tol, abs_err, rel_err, ef, ulps)
        if steps is not None:  # the dequantized values are floats, rounded themselves: the float tolerance adds
            with np.errstate(invalid="ignore", over="ignore"):
                close |= abs_err <= steps + (tol.atol + tol.rtol * np.abs(ef))
        # An infinity is only ever within tolerance of the same infinity (then it is equal).
        within = equal | (close & finite)
    valid = ~nan_mismatch
    max_abs = float(np.max(abs_err[valid])) if valid.any() else None
    max_rel = float(np.max(rel_err[valid])) if valid.any() else None
    max_ulp = int(np.max(ulps[valid])) if ulps is not None and valid.any() else None
    outside = int(np.count_nonzero(~within))
    return OutputComparison(
        **head,
        elements=int(e.size),
        max_abs=max_abs,
        max_rel=max_rel,
        max_ulp=max_ulp,
        outside=outside,
        nan_mismatches=int(np.count_nonzero(nan_mismatch)),
        worst=_worst(e, a, abs_err, ulps, within, nan_mismatch, worst),
    )


def _close(
    tol: ResolvedTolerance, abs_err: np.ndarray, rel_err: np.ndarray, ef: np.ndarray, ulps: np.ndarray | None
) -> np.ndarray:
    """Where the figures of ``tol`` accept an element that differs: one criterion, or all of ``tol.all_of``."""
    with np.errstate(invalid="ignore", over="ignore"):
        if tol.all_of:
            close = np.ones(abs_err.shape, dtype=bool)
            if "atol" in tol.all_of:
                close &= abs_err <= tol.atol
            if "rtol" in tol.all_of:
                close &= rel_err <= tol.rtol
            if "ulp" in tol.all_of:
                close &= ulps <= np.uint64(tol.ulp) if ulps is not None else False
            return close
        close = abs_err <= tol.atol + tol.rtol * np.abs(ef)
    if ulps is not None:
        close |= ulps <= np.uint64(tol.ulp)
    return close


def _worst(
    e: np.ndarray,
    a: np.ndarray,
    abs_err: np.ndarray,
    ulps: np.ndarray | None,
    within: np.ndarray,
    nan_mismatch: np.ndarray,
    count: int,
) -> list[WorstElement]:
    """The ``count`` worst elements: outside tolerance first, NaN mismatches first, then by error."""
    if count <= 0:
        return []
    flat_err = np.nan_to_num(abs_err.ravel(), nan=np.inf, posinf=np.inf)
    flat_idx = np.arange(e.size)
    # lexsort: last key is primary. Ties are broken by the flat index, so the order is deterministic.
    order = np.lexsort((flat_idx, -flat_err, ~nan_mismatch.ravel(), within.ravel()))
    picked = [int(i) for i in order[:count] if flat_err[i] > 0 or not within.ravel()[i]]
    out = []
    for i in picked:
        idx = tuple(int(x) for x in np.unravel_index(i, e.shape))
        out.append(
            WorstElement(
                index=idx,
                expected=e.ravel()[i].item(),
                actual=a.ravel()[i].item(),
                abs_error=float(abs_err.ravel()[i]),
                ulp=None if ulps is None or nan_mismatch.ravel()[i] else int(ulps.ravel()[i]),
                within=bool(within.ravel()[i]),
            )
        )
    return out
