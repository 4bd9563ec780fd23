"""Element-type conversion: the rules of Cast, shared by Cast, CastLike and kernels that name an element type.

Element types are NumPy dtypes (``ml_dtypes`` for bfloat16, the float8,
float6 and float4 families and the 2/4-bit integers). Every source is first
widened without loss to a NumPy type (small floats to float32, small integers
to int8/uint8), then converted:

* to bool: nonzero (NaN included) is True;
* to an integer of 8 bits or more: floats truncate toward zero (out of range
  and NaN are undefined in ONNX; NumPy's result is returned); integers keep
  their low bits (two's complement);
* to a 2/4-bit integer: floats round to the nearest integer, ties to even
  (NaN and infinities, undefined, give 0), then every integer keeps its low
  2/4 bits (onnx's notes on INT4 and INT2);
* to float16/32/64 and bfloat16: round to nearest even, infinity when out of
  range;
* to the float8 types E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ: round to nearest even;
  with ``saturate`` (the default) values beyond the largest finite value,
  infinities included, become that value (sign kept) and NaN stays NaN;
  without it, out-of-range values become infinity where the type has one
  (E5M2) and NaN otherwise (the two tables of the Cast operator);
* to FLOAT4E2M1 and the float6 types (no infinity, no NaN): round to nearest
  even and clamp to the largest finite value; NaN has no encoding and becomes
  -0 [Non-normative: onnx's float4 note says 6, but its backend cases, made
  with ml_dtypes, expect -0];
* to FLOAT8E8M0 (powers of two 2^-127 .. 2^127, and NaN): ``round_mode``
  ``up`` takes the next power of two at or above the value, ``down`` the one
  at or below, ``nearest`` the closer one (ties, 1.5 * 2^e, go up). With
  ``saturate`` a result above 2^127 (and +inf) becomes 2^127 and one below
  2^-127 (and 0) becomes 2^-127; without it both become NaN. Negative values
  are undefined in ONNX and become NaN.

Text: strings parse as decimal numbers (``INF``, ``+INF``, ``-INF``, ``NaN``
in any letter case; integer literals only for an integer target); numbers
print as NumPy prints a scalar of their type (the shortest decimal that reads
back as the same value, e.g. ``0.5488135``, ``1e+06`` for float32); floats
NumPy lacks print through the narrowest NumPy float holding them exactly
(float16 for the 4/6/8-bit floats, float32 for bfloat16 and E8M0); ``NaN``,
``INF`` and ``-INF`` stand for the special values, and booleans print as
``True``/``False``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

_SUB_BYTE_INTS: dict[np.dtype[Any], tuple[int, bool]] = {
    np.dtype(ml_dtypes.int4): (4, True),
    np.dtype(ml_dtypes.uint4): (4, False),
    np.dtype(ml_dtypes.int2): (2, True),
    np.dtype(ml_dtypes.uint2): (2, False),
}
FLOAT8 = frozenset(
    np.dtype(t)
    for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz)
)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_NO_SPECIALS = frozenset(
    np.dtype(t) for t in (ml_dtypes.float4_e2m1fn, ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn)
)
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_ML_FLOATS = frozenset({_BFLOAT16, E8M0}) | FLOAT8 | _NO_SPECIALS
# ml_dtypes floats whose every value float16 holds exactly (the others need float32)
_FIT_FLOAT16 = FLOAT8 | _NO_SPECIALS
ROUND_MODES = ("up", "down", "nearest")


def is_text(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` holds strings (ONNX STRING is an object array of ``str``)."""
    return dtype.kind in "OUS"


def is_float(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is a real floating-point type, NumPy's or ml_dtypes'."""
    return dtype.kind == "f" or dtype in _ML_FLOATS


def is_integer(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is an integer type, NumPy's or a 2/4-bit one."""
    return dtype.kind in "iu" or dtype in _SUB_BYTE_INTS


def sub_byte_int(dtype: np.dtype[Any]) -> tuple[int, bool] | None:
    """(bits, signed) of a 2/4-bit integer type, None for any other type."""
    return _SUB_BYTE_INTS.get(dtype)


def widen(x: np.ndarray) -> np.ndarray:
    """``x`` in a NumPy type holding every value exactly: small floats as float32, 2/4-bit integers as int8/uint8."""
    if x.dtype in _ML_FLOATS:
        return x.astype(np.float32)
    small = _SUB_BYTE_INTS.get(x.dtype)
    if small is not None:
        return x.astype(np.int8 if small[1] else np.uint8)
    return x


def _text(x: np.ndarray) -> np.ndarray:
    """A string array as NumPy unicode."""
    if x.dtype.kind == "S":
        return np.char.decode(x, "utf-8")
    return x.astype(np.str_)


def _parse(x: np.ndarray, target: np.dtype[Any]) -> np.ndarray:
    """Strings as numbers: int64 (uint64) literals for an integer target, float64 otherwise."""
    text = np.char.strip(_text(x))
    try:
        if is_integer(target):
            return text.astype(np.uint64 if target == np.uint64 else np.int64)
        return text.astype(np.float64)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"Cast: a string is not a number ({exc})") from None


def _print(x: np.ndarray) -> np.ndarray:
    """Numbers as text (object array of ``str``)."""
    if x.dtype in _ML_FLOATS:
        x = x.astype(np.float16 if x.dtype in _FIT_FLOAT16 else np.float32)
    x = widen(x)
    text = x.astype(np.str_)
    if x.dtype.kind == "f":
        text = np.where(np.isnan(x), "NaN", text)
        text = np.where(np.isposinf(x), "INF", text)
        text = np.where(np.isneginf(x), "-INF", text)
    return np.asarray(text).astype(np.object_)


def _to_sub_byte_int(x: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """Round floats to nearest even (NaN and infinities to 0), then keep the low ``bits`` bits."""
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            r = np.rint(x.astype(np.float64))
            r = np.where(np.isfinite(r), np.fmod(r, 2.0**bits), 0.0)
        whole = r.astype(np.int64)
    else:
        whole = x.astype(np.int64)  # uint64 beyond int64 wraps, which keeps the low bits
    low = whole & (2**bits - 1)
    if signed:
        return np.where(low >= 2 ** (bits - 1), low - 2**bits, low).astype(np.int8)
    return low.astype(np.uint8)


def _to_e8m0(x: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """Powers of two, rounded by ``round_mode``; see the module text for the out-of-range rules."""
    v = np.asarray(x, dtype=np.float64).reshape(-1)
    mantissa, exponent = np.frexp(np.abs(v))  # |v| = mantissa * 2**exponent, mantissa in [0.5, 1)
    e = exponent.astype(np.int64) - 1  # the power of two at or below |v|
    ratio = mantissa * 2.0  # |v| / 2**e, in [1, 2)
    if round_mode == "up":
        e = e + (ratio > 1.0)
    elif round_mode == "nearest":
        e = e + (ratio >= 1.5)
    code = e + 127
    positive = np.isfinite(v) & (v > 0)
    too_big = np.isposinf(v) | (positive & (code > 254))
    too_small = (v == 0) | (positive & (code < 0))
    if saturate:
        code = np.where(too_big, 254, np.where(too_small, 0, code))
        valid = positive | too_big | too_small
    else:
        valid = positive & ~too_big & ~too_small
    code = np.where(valid, code, 255)
    return code.astype(np.uint8).view(E8M0).reshape(np.shape(x))


def convert(x: np.ndarray, target: np.dtype[Any], saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """``x`` converted to element type ``target`` by the rules of the module text."""
    if round_mode not in ROUND_MODES:
        raise ValueError(f"round_mode must be one of {', '.join(ROUND_MODES)}, got {round_mode!r}")
    if x.dtype.kind == "c" or target.kind == "c":
        raise ValueError(f"conversion between {x.dtype} and {target} is not defined (complex)")
    if is_text(target):
        return _text(x).astype(np.object_) if is_text(x.dtype) else _print(x)
    src = _parse(x, target) if is_text(x.dtype) else widen(x)
    with np.errstate(all="ignore"):
        if target == np.bool_:
            return np.asarray(src != 0)
        small = _SUB_BYTE_INTS.get(target)
        if small is not None:
            return _to_sub_byte_int(src, *small).astype(target)
        if target.kind in "iuf" and target not in _ML_FLOATS:  # (ml_dtypes gives float8_e5m2 kind "f")
            return src.astype(target)
        wide = src if src.dtype.kind == "f" else src.astype(np.float64)
        if target == E8M0:
            return _to_e8m0(wide, saturate, round_mode)
        if target in _NO_SPECIALS:
            top = float(ml_dtypes.finfo(target).max)
            wide = np.where(np.isnan(wide), -0.0, np.clip(wide, -top, top))
        elif target in FLOAT8 and saturate:
            top = float(ml_dtypes.finfo(target).max)
            wide = np.clip(wide, -top, top)
        return np.asarray(wide).astype(target)
