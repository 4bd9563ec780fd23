"""Shape: the input's dimensions as a 1-D int64 tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def shape(data: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 13: every dimension."""
    return np.array(data.shape, dtype=np.int64)


def shape_range(data: np.ndarray, start: int = 0, end: int | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 15 on: the dimensions from ``start`` to ``end`` (negative counts from the back, clamped to [0, rank])."""
    rank = data.ndim

    def clamp(k: int) -> int:
        k = k + rank if k < 0 else k
        return min(max(k, 0), rank)

    lo = clamp(start)
    hi = rank if end is None else clamp(end)
    return np.array(data.shape[lo:hi], dtype=np.int64)


KERNELS = (
    Kernel("Shape", (1, 13), shape),
    Kernel("Shape", (15, 19, 21, 23, 24, 25), shape_range),
)
