"""Sub: element-wise difference, A - B."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def sub(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: multidirectional broadcasting; the result keeps A's element type."""
    return np.subtract(a, b).astype(a.dtype, copy=False)


def sub_legacy(a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."""
    return np.subtract(a, legacy_align(a, b, broadcast, axis)).astype(a.dtype, copy=False)


KERNELS = (
    Kernel("Sub", (1, 6), sub_legacy),
    Kernel("Sub", (7, 13, 14), sub),
)
