"""Pow: element-wise power, X ** Y."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
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
