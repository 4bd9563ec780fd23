"""Shrink: x + bias for x < -lambd, x - bias for x > lambd, 0 otherwise, element-wise.

Floating types are computed in working precision. Integer types are computed
exactly in the integer type: the thresholds compare integers against the real
``lambd``, and a fractional ``bias`` gives the real result truncated toward
zero (what a C conversion of x -+ bias to the integer type gives).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._elementwise import apply_float, is_float, require_numeric
from .base import Kernel


def _shrink_float(w: np.ndarray, lambd: float, bias: float) -> np.ndarray:
    return np.where(w < -lambd, w + bias, np.where(w > lambd, w - bias, 0))


def _plus(x: np.ndarray, k: int) -> np.ndarray:
    """x + k in x's integer type (wrapping like C); k must fit the type in magnitude."""
    if abs(k) > np.iinfo(x.dtype).max:
        raise ValueError(f"Shrink's bias ({k}) does not fit {x.dtype}")
    step = np.asarray(abs(k), dtype=x.dtype)
    return np.asarray(x + step if k >= 0 else x - step)


def _shrink_integer(x: np.ndarray, lambd: float, bias: float) -> np.ndarray:
    if not (math.isfinite(lambd) and math.isfinite(bias)):
        raise ValueError(f"Shrink on integers needs a finite lambd and bias, got {lambd} and {bias}")
    # x < -lambd  <=>  x < ceil(-lambd);  x > lambd  <=>  x > floor(lambd)  (for integer x)
    low = x < math.ceil(-lambd)
    high = x > math.floor(lambd)
    whole = math.floor(bias)
    fractional = bias != whole
    down = _plus(x, -whole)  # x - bias = down - fraction, truncated toward zero
    up = _plus(x, whole)  # x + bias = up + fraction, truncated toward zero
    if fractional:
        one = np.ones((), dtype=x.dtype)
        down = np.where(down > 0, down - one, down)
        up = np.where(up < 0, up + one, up)
    zero = np.zeros((), dtype=x.dtype)
    return np.where(low, up, np.where(high, down, zero)).astype(x.dtype, copy=False)


def shrink(x: np.ndarray, bias: float = 0.0, lambd: float = 0.5, **_attrs: Any) -> np.ndarray:
    """The only version (9)."""
    require_numeric(x, "Shrink")
    if is_float(x.dtype):
        return apply_float("Shrink", _shrink_float, x, lambd=lambd, bias=bias)
    return _shrink_integer(x, float(lambd), float(bias))


KERNELS = (Kernel("Shrink", (9,), shrink),)
