"""Sqrt: square root (NaN for a negative number), element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def sqrt_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


KERNELS = (Kernel("Sqrt", (1, 6, 13), sqrt_),)
