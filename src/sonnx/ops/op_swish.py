"""Swish: x * sigmoid(alpha * x) = x / (1 + exp(-alpha * x)), element-wise.

Where x is infinite and sigmoid(alpha * x) is 0, the result is the limit 0 rather than inf * 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _sigmoid(v: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(v))  # never overflows; the two branches are one function rearranged
    return np.where(v >= 0, 1 / (1 + e), e / (1 + e))


def _swish(w: np.ndarray, alpha: float) -> np.ndarray:
    y = w * _sigmoid(alpha * w)
    return np.where(np.isinf(w) & (y != y), 0.0 * np.sign(w), y)


def swish(x: np.ndarray, alpha: float = 1.0, **_attrs: Any) -> np.ndarray:
    """The only version (24)."""
    return apply_float("Swish", _swish, x, alpha=alpha)


KERNELS = (Kernel("Swish", (24,), swish),)
