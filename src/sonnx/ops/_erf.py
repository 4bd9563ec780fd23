"""The error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, vectorised in float64 (no SciPy).

Two formulas, each where it is accurate to float64 rounding (the tests check
that every result is within one unit in the last place of ``math.erf``'s, and
mostly equal to it):

* ``|x| < 2``: the Maclaurin series erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)),
  36 terms, evaluated by Horner's rule in x^2. The terms alternate and cancel
  (by a factor of about 4 at x = 2), so the leading terms are evaluated in
  double-double arithmetic (an unevaluated sum hi + lo of two floats, about 106
  bits), the small tail in plain float64.
* ``|x| >= 2``: erf(x) = 1 - erfc(x), erfc by its continued fraction
  erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))),
  60 levels evaluated from the tail. erfc(x) < 0.005 there, so its few units of
  rounding error vanish in the subtraction; exp(-x^2) uses x^2 split exactly into
  two floats.

erf is odd, erf(+-inf) = +-1, erf(NaN) = NaN; for |x| >= 6, erf(x) rounds to +-1.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

_SPLITTER = 134217729.0  # 2^27 + 1: splits a float64 into two halves of 26 bits (Veltkamp)

# 2/sqrt(pi) and 1/sqrt(pi) as double-double / double; tests recompute them in exact arithmetic
TWO_OVER_SQRT_PI = (1.1283791670955126, 1.533545961316588e-17)
ONE_OVER_SQRT_PI = 0.5641895835477563

SERIES_CUT = 2.0
SERIES_TERMS = 36
EXACT_TERMS = 12  # the leading terms evaluated in double-double
FAST_TERMS = 26  # the terms the float32 path evaluates in plain float64 (see "float32 results, faster")
SHORT_CUT = 1.0  # below it, the float32 path evaluates SHORT_TERMS terms only
SHORT_TERMS = 15
FRACTION_DEPTH = 60
FAST_DEPTH = 26  # the levels of the continued fraction in the float32 path
SATURATION = 6.0  # erf(x) rounds to 1.0 in float64 from here on

Pair = tuple[Any, Any]
"""A double-double number: two arrays of float64 (or two Python floats, in :func:`series_scalar`)."""


def _split(a: np.ndarray) -> Pair:
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _two_sum(a: np.ndarray, b: np.ndarray) -> Pair:
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _fast_two_sum(a: np.ndarray, b: np.ndarray) -> Pair:
    s = a + b
    return s, b - (s - a)


def _two_product(a: np.ndarray, b: np.ndarray) -> Pair:
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_mul(a: Pair, b: Pair) -> Pair:
    p, e = _two_product(a[0], b[0])
    return _fast_two_sum(p, e + (a[0] * b[1] + a[1] * b[0]))


def _dd_add(a: Pair, b: Pair) -> Pair:
    s, e = _two_sum(a[0], b[0])
    return _fast_two_sum(s, e + (a[1] + b[1]))


_COEFFICIENTS = tuple(Fraction((-1) ** n, math.factorial(n) * (2 * n + 1)) for n in range(SERIES_TERMS))
# the coefficients as the floats the evaluations use, converted once: the tail's nearest doubles, highest first,
# and the leading ones as double-double pairs (nearest double, nearest double of the rest), highest first
_TAIL_FLOATS = tuple(float(c) for c in reversed(_COEFFICIENTS[EXACT_TERMS:-1]))
_LEAD_PAIRS = tuple((float(c), float(c - Fraction(float(c)))) for c in reversed(_COEFFICIENTS[:EXACT_TERMS]))
_HORNER_FLOATS = tuple(float(c) for c in reversed(_COEFFICIENTS[: FAST_TERMS - 1]))
_SHORT_FLOATS = _HORNER_FLOATS[FAST_TERMS - SHORT_TERMS :]


def _series(x: np.ndarray) -> np.ndarray:
    """erf(x) for 0 <= x < 2 by the Maclaurin series (double-double for the leading terms)."""
    z = _two_product(x, x)
    tail = np.full_like(x, float(_COEFFICIENTS[-1]))
    for c in _TAIL_FLOATS:
        tail = c + z[0] * tail
    acc: Pair = (tail, np.zeros_like(x))
    for hi, lo in _LEAD_PAIRS:
        acc = _dd_add((np.full_like(x, hi), np.full_like(x, lo)), _dd_mul(z, acc))
    acc = _dd_mul(acc, (np.full_like(x, TWO_OVER_SQRT_PI[0]), np.full_like(x, TWO_OVER_SQRT_PI[1])))
    hi, lo = _dd_mul(acc, (x, np.zeros_like(x)))
    return hi + lo


def series_scalar(x: float) -> float:
    """:func:`_series` of one Python float: the same operations in the same order, so the same float64 result.

    Every step of the double-double series is an IEEE addition, subtraction or
    multiplication of two doubles, rounded to nearest, whether NumPy or Python
    performs it; evaluating it on one float instead of an array of one element
    saves the cost of some 700 NumPy calls.
    """
    # the helpers are typed for arrays; on floats they run the same arithmetic
    v: Any = x
    z: Any = _two_product(v, v)
    tail: Any = float(_COEFFICIENTS[-1])
    for c in _TAIL_FLOATS:
        tail = c + z[0] * tail
    acc: Any = (tail, 0.0)
    for pair in _LEAD_PAIRS:
        acc = _dd_add(pair, _dd_mul(z, acc))
    acc = _dd_mul(acc, TWO_OVER_SQRT_PI)
    hi, lo = _dd_mul(acc, (v, 0.0))
    return float(hi + lo)


def _exp_minus_square(x: np.ndarray) -> np.ndarray:
    """exp(-x^2), with x^2 = hi^2 + (2 hi lo + lo^2) so that no rounding of x^2 is amplified."""
    hi, lo = _split(x)
    return np.exp(-(hi * hi)) * np.exp(-(2.0 * hi * lo + lo * lo))


def _complement(x: np.ndarray, depth: int = FRACTION_DEPTH) -> np.ndarray:
    """erfc(x) for 2 <= x <= 6 by the continued fraction cut after ``depth`` levels."""
    denominator = x.copy()
    # fixed depth, from the innermost level out (a loop over levels, each a whole-array operation)
    for k in range(depth, 0, -1):
        denominator = x + (k / 2.0) / denominator
    return ONE_OVER_SQRT_PI * _exp_minus_square(x) / denominator


def erf(x: np.ndarray) -> np.ndarray:
    """erf of every element of ``x``, as float64."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.ones_like(a)  # |x| >= 6 (and infinities)
    out[np.isnan(a)] = np.nan
    near = a < SERIES_CUT
    middle = (a >= SERIES_CUT) & (a < SATURATION)
    with np.errstate(all="ignore"):
        out[near] = _series(a[near])
        out[middle] = 1.0 - _complement(a[middle])
    return np.copysign(out, x)


# ---------------------------------------------------------------------------------- float32 results, faster
# A float32 Erf needs erf(x) only up to its rounding to float32. The double-double series above costs some 700 float64
# operations an element; the plain float64 Horner evaluation of its first FAST_TERMS = 26 terms costs 52, with a
# relative error below 6.1e-13 for |x| < 2. Truncation: the series alternates and, for n >= 4 > z = x^2, its terms
# shrink, so the rest after 26 terms is at most |c_26| z^26 <= 4^26 / (26! 53) < 2.2e-13, against a sum p(z) = erf(x)
# sqrt(pi) / (2 x) >= 0.441 (it falls with x): below 5e-13 relative. Rounding (Horner's bound): 52 roundings of 2^-53
# times sum |c_n| z^n / p(z), at most 8.2 / 0.441 at x = 2, plus the coefficients' and the final products' roundings:
# below 1.1e-13. Both together are far inside the MIDPOINT_MARGIN used below (1.46e-11). Where every value within the
# margin of that faster value rounds to the same float32, so do the exact erf(x) and ``erf``'s value (within one unit
# of float64 of it): the float32 result is the same. The few other elements (near a midpoint between two float32
# values), and every non-finite input, are computed by ``erf`` itself (a few finite ones one at a time, by
# ``series_scalar``: the same doubles).
#
# For |x| < SHORT_CUT = 1 (z <= 1) every term is smaller than the one before (the ratio of term n + 1 to term n is
# z (2n + 1) / ((n + 1)(2n + 3)) < 1), so SHORT_TERMS = 15 terms leave out at most 1 / (15! 31) < 2.5e-14, against
# p(z) >= p(1) > 0.746: below 3.4e-14 relative; the Horner bound is 30 roundings times sum 1 / (n! (2n + 1)) / 0.746
# < 2, with the final products: below 1e-14. Those elements (most of a typical activation) take the 15 terms, the
# others the 26.
#
# For 2 <= |x| < 6 the faster value cuts the continued fraction after FAST_DEPTH = 26 levels instead of
# FRACTION_DEPTH = 60. Its partial numerators and denominators are positive, so its successive truncations alternate
# around its value and every deeper one lies between two consecutive ones: the relative difference between the
# denominators at depths 26 and 60 is at most that between depths 26 and 27, at most 6.3e-11 on every float32 in
# [2, 6) (the tests evaluate it on every eighth one, and compare the float32 results with ``erf``'s on every one),
# and the float64 evaluations of both add below 1e-14. Both values are 1 - q for the same numerator
# exp(-x^2) / sqrt(pi) over the two denominators, with q <= erfc(2) < 0.0047 and 1 - q > 0.995: they differ by less
# than 0.0047 * 6.4e-11 + 4 * 2^-53 < 3.1e-13 relative, inside FAST_ERROR. As for the series, an element whose
# interval of half-width MIDPOINT_MARGIN holds a float32 midpoint is recomputed by ``erf`` (here with the 60
# levels); the others round as
# ``erf``'s value does. At |x| >= 6 the value is 1, as in ``erf``.

FAST_ERROR = 6.1e-13
"""The bound on the relative error of that evaluation for |x| < 6 (see the comment above)."""

MIDPOINT_MARGIN = 2.0**-36
"""Relative distance to a float32 midpoint under which an element is recomputed by :func:`erf` (about 1.5e-11)."""


def _series_float64(x: np.ndarray, terms: int = FAST_TERMS) -> np.ndarray:
    """erf(x) for 0 <= x < 2 by the series's first ``terms`` terms (FAST_TERMS or SHORT_TERMS), in plain float64.

    Horner's rule in x^2, the coefficients being those of the first ``terms`` terms.
    """
    z = x * x
    acc = z * float(_COEFFICIENTS[terms - 1])  # the constant times z: Horner's first step, without a filled array
    coefficients = _HORNER_FLOATS if terms == FAST_TERMS else _SHORT_FLOATS
    acc += coefficients[0]
    for c in coefficients[1:]:
        acc *= z
        acc += c
    acc *= TWO_OVER_SQRT_PI[0]
    acc *= x
    return acc


def _near_float32_midpoint(y: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """Where ``y`` (float64) might lie within MIDPOINT_MARGIN * |y| of a midpoint between float32 values.

    Rounding is monotonic: when y (1 - m) and y (1 + m) both round to ``rounded``, so does every value between
    them (the two products' own roundings, 2^-53 relative, narrow the interval negligibly).
    """
    low = (y * (1.0 - MIDPOINT_MARGIN)).astype(np.float32)
    high = (y * (1.0 + MIDPOINT_MARGIN)).astype(np.float32)
    return (low != rounded) | (high != rounded)


def erf_float32(x: np.ndarray, block: int = 32768) -> np.ndarray:
    """erf of every element of a float32 ``x``, rounded to float32: the float32 rounding of :func:`erf`'s result.

    Computed in blocks of ``block`` elements (the temporaries stay in the cache) by the short series; each
    element's operations do not depend on the blocks. The elements with |x| >= SHORT_CUT are gathered over all
    blocks and computed at once (:func:`_erf_float32_wide`), and so are the elements to recompute, by :func:`erf`.
    """
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=np.float32)
    redo: list[np.ndarray] = []
    wide: list[np.ndarray] = []
    for start in range(0, flat.size, block):
        rounded, again, beyond = _erf_float32_block(flat[start : start + block])
        out[start : start + block] = rounded
        if again.size:
            redo.append(again + start)
        if beyond.size:
            wide.append(beyond + start)
    spread = np.concatenate(wide) if wide else np.zeros(0, dtype=np.intp)
    for start in range(0, spread.size, block):
        where = spread[start : start + block]
        wide_x = flat[where].astype(np.float64)
        rounded, again = _erf_float32_wide(wide_x, np.abs(wide_x))
        out[where] = rounded
        if again.size:
            redo.append(where[again])
    if redo:
        where = np.concatenate(redo)
        out[where] = _recomputed(flat[where].astype(np.float64)).astype(np.float32)
    return out.reshape(x.shape)


SCALAR_REDO = 32
"""Up to this many elements to recompute, all finite, go through :func:`series_scalar` one by one."""

WIDE_SHARE = 8
"""A block in which more than one element in WIDE_SHARE has |x| >= SHORT_CUT takes the long series throughout."""


def _recomputed(x: np.ndarray) -> np.ndarray:
    """:func:`erf` of the elements to recompute (finite ones mostly have |x| < 2: they take the series).

    A few finite elements, the usual case (about one in 2,000 lies near a
    float32 midpoint), are computed one at a time by :func:`series_scalar`,
    which gives :func:`erf`'s value bit for bit; otherwise :func:`erf` itself.
    """
    if x.size > SCALAR_REDO or not np.isfinite(x).all() or (np.abs(x) >= SERIES_CUT).any():
        return erf(x)
    return np.array([math.copysign(series_scalar(abs(v)), v) for v in x.tolist()], dtype=np.float64)


def _erf_float32_block(x32: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The faster values of a block rounded to float32, the indices of the elements to recompute, and those of the
    elements whose values are still to be computed by :func:`_erf_float32_wide`.

    When few elements have |x| >= SHORT_CUT, the block takes the short series and leaves those elements (infinities
    included) to be gathered; otherwise the whole block takes :func:`_erf_float32_wide` (gathering most of a block
    would cost more than the short series saves).
    """
    x = x32.astype(np.float64)
    a = np.abs(x)
    beyond = a >= SHORT_CUT
    if np.count_nonzero(beyond) * WIDE_SHARE > a.size:
        rounded, redo = _erf_float32_wide(x, a)
        return rounded, redo, np.zeros(0, dtype=np.intp)
    with np.errstate(all="ignore"):
        y = _series_float64(a, SHORT_TERMS)
        y = np.copysign(y, x)
        rounded = y.astype(np.float32)
        redo = np.flatnonzero((_near_float32_midpoint(y, rounded) & ~beyond) | np.isnan(a))
    return rounded, redo, np.flatnonzero(beyond)


def _erf_float32_wide(x: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The faster values of float64 ``x`` (float32 values; ``a`` = |x|) rounded to float32, and the indices of those
    to recompute.

    The long series for every element, replaced where |x| >= 2 by the shortened continued fraction (up to 6) or 1.
    """
    with np.errstate(all="ignore"):
        y = _series_float64(a)
        far = np.flatnonzero(a >= SERIES_CUT)
        if far.size:
            tail = np.ones(far.size)  # |x| >= 6 (finite ones; non-finite inputs are recomputed)
            af = a[far]
            middle = np.flatnonzero(af < SATURATION)
            tail[middle] = 1.0 - _complement(af[middle], FAST_DEPTH)
            y[far] = tail
        y = np.copysign(y, x)
        rounded = y.astype(np.float32)
        redo = np.flatnonzero(_near_float32_midpoint(y, rounded) | ~np.isfinite(x))
    return rounded, redo
