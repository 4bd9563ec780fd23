"""Div: element-wise quotient, A / B.

Floating-point division follows IEEE 754 (x/0 gives an infinity or NaN).
Integer division truncates toward zero (the C rule the ONNX runtimes follow);
an integer division by zero has no defined result and is refused.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions
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


div, div_legacy = broadcast_versions(_divide, "div", "div_legacy")

KERNELS = (
    Kernel("Div", (1, 6), div_legacy),
    Kernel("Div", (7, 13, 14), div),
)
