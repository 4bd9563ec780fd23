"""Add: element-wise sum, A + B."""

from __future__ import annotations

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel


def add(a: np.ndarray, b: np.ndarray, **_attrs: object) -> np.ndarray:
    """Opset 7 on: NumPy (multidirectional) broadcasting; the result keeps A's element type."""
    return np.add(a, b).astype(a.dtype, copy=False)


def add_legacy(
    a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: object
) -> np.ndarray:
    """Opsets 1 and 6: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."""
    return np.add(a, legacy_align(a, b, broadcast, axis)).astype(a.dtype, copy=False)


KERNELS = (
    Kernel("Add", (1, 6), add_legacy),
    Kernel("Add", (7, 13, 14), add),
)
