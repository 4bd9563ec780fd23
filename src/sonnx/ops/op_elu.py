"""Elu: x for x >= 0, alpha * (exp(x) - 1) for x < 0, element-wise.

Versions differ only in the element types they admit (22 adds bfloat16; 1 has
the ignored ``consumed_inputs``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _elu(w: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(w < 0, alpha * np.expm1(np.minimum(w, 0)), w)


def elu(x: np.ndarray, alpha: float = 1.0, **_attrs: Any) -> np.ndarray:
    """The same function for every version."""
    return apply_float("Elu", _elu, x, alpha=alpha)


KERNELS = (Kernel("Elu", (1, 6, 22), elu),)
