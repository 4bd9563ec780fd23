"""Div: element-wise quotient, A / B.

Floating-point division follows IEEE 754 (x/0 gives an infinity or NaN).
Integer division truncates toward zero (the C rule the ONNX runtimes follow);
an integer division by zero has no defined result and is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(np.asarray(b).dtype, np.integer):
        if np.any(b == 0):
            raise ValueError("integer division by zero")
        q = np.floor_divide(a, b)
        # floor_divide rounds toward -inf; move inexact negative quotients back toward zero
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return np.where(fix, q + 1, q).astype(a.dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(a, b).astype(a.dtype, copy=False)


def div(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: multidirectional broadcasting; the result keeps A's element type."""
    return _divide(a, b)


def div_legacy(a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."""
    return _divide(a, legacy_align(a, b, broadcast, axis))


KERNELS = (
    Kernel("Div", (1, 6), div_legacy),
    Kernel("Div", (7, 13, 14), div),
)
