"""Pow: element-wise power, X ** Y.

A float32 X raised to a 0-d Y of exactly 2 or 3 (the squares and cubes of
GELU and variance exports) is computed as the correctly rounded square or
cube instead of through ``powf`` element by element, which costs some 60 ns
an element: X * X in float32 is the square rounded once; for the cube, X * X
is exact in float64 (48 of 53 bits), its product with X is rounded once in
float64 and then to float32, within 0.5 ulp of float32 plus 2^-29 ulp of the
exact cube. ``powf`` is itself within about 1 ulp of it, so the two differ
by at most one unit in the last place, inside the float32 tolerance the spec
states for ``Pow`` (spec/operators.rst, section 6: at most 2 ulp, absolute
1e-6 or relative 1e-5), and the new value is the nearer to the exact power.
Infinities, NaNs, zeros and overflow come out as ``powf`` gives them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def _small_power(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """X ** Y for a float32 X and a 0-d floating Y of exactly 2 or 3 (see the module text); None otherwise."""
    if x.dtype != np.float32 or y.ndim != 0 or y.dtype.kind != "f":
        return None
    exponent = float(y)
    with np.errstate(over="ignore"):  # an overflow gives an infinity, as powf does
        if exponent == 2.0:
            return np.multiply(x, x)
        if exponent == 3.0:
            wide = x.astype(np.float64)
            return (wide * wide * wide).astype(np.float32)
    return None


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    small = _small_power(x, y)
    if small is not None:
        return small
    if np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer) and np.any(y < 0):
        raise ValueError("an integer base raised to a negative integer exponent has no integer result")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer):
            r = np.power(x, y.astype(x.dtype, copy=False)) if x.dtype == y.dtype else np.power(x, y)
        else:
            r = np.power(x, y)
        return np.asarray(r).astype(x.dtype, copy=False)


def pow_(x: np.ndarray, y: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: multidirectional broadcasting; the result has X's element type (Y's may differ from 12)."""
    return _power(x, y)


def pow_legacy(x: np.ndarray, y: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 1: Y broadcast to X only when ``broadcast`` is set, aligned at ``axis``."""
    return _power(x, legacy_align(x, y, broadcast, axis))


KERNELS = (
    Kernel("Pow", (1,), pow_legacy),
    Kernel("Pow", (7, 12, 13, 15), pow_),
)
