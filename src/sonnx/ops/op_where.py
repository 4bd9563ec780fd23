"""Where: X where the condition holds, Y elsewhere (multidirectional broadcasting)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def where(condition: np.ndarray, x: np.ndarray, y: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (16 adds bfloat16)."""
    if condition.dtype != np.bool_:
        raise ValueError(f"Where's condition must be boolean, got {condition.dtype}")
    if x.dtype != y.dtype:
        raise ValueError(f"Where's X and Y must have one element type, got {x.dtype} and {y.dtype}")
    return np.where(condition, x, y).astype(x.dtype, copy=False)


KERNELS = (Kernel("Where", (9, 16), where),)
