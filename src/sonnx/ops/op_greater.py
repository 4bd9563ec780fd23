"""Greater: the element-wise comparison A > B, a boolean tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def _compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype != b.dtype:
        raise ValueError(f"Greater's inputs must have one element type, got {a.dtype} and {b.dtype}")
    return np.asarray(np.greater(a, b), dtype=np.bool_)


def greater(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: multidirectional broadcasting."""
    return _compare(a, b)


def greater_legacy(
    a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any
) -> np.ndarray:
    """Opset 1: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."""
    return _compare(a, legacy_align(a, b, broadcast, axis))


KERNELS = (
    Kernel("Greater", (1,), greater_legacy),
    Kernel("Greater", (7, 9, 13), greater),
)
