"""Mul: element-wise product, A * B."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def mul(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: multidirectional broadcasting; the result keeps A's element type."""
    return np.multiply(a, b).astype(a.dtype, copy=False)


def mul_legacy(a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."""
    return np.multiply(a, legacy_align(a, b, broadcast, axis)).astype(a.dtype, copy=False)


KERNELS = (
    Kernel("Mul", (1, 6), mul_legacy),
    Kernel("Mul", (7, 13, 14), mul),
)
