"""Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), element-wise (continuously differentiable ELU).

Version 12 admits float32 only; 28 also float16, float64 and bfloat16. alpha = 0
divides by zero and is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _celu(w: np.ndarray, alpha: float) -> np.ndarray:
    return np.maximum(w, 0) + np.minimum(alpha * np.expm1(w / alpha), 0)


def celu(x: np.ndarray, alpha: float = 1.0, **_attrs: Any) -> np.ndarray:
    """Versions 12 and 28 differ only in the element types they admit."""
    if alpha == 0:
        raise ValueError("Celu's alpha must be nonzero (x / alpha)")
    return apply_float("Celu", _celu, x, alpha=alpha)


KERNELS = (Kernel("Celu", (12, 28), celu),)
