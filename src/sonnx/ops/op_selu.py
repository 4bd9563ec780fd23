"""Selu: gamma * x for x > 0, gamma * alpha * (exp(x) - 1) for x <= 0, element-wise (scaled ELU).

The versions compute the same function; they differ in the element types they
admit (22 adds bfloat16) and in the attribute defaults: version 1's alpha and
gamma are 1.6732 and 1.0507 (float32-rounded), version 6's 1.67326319... and
1.05070102... (the schema fills them in).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _selu(w: np.ndarray, alpha: float, gamma: float) -> np.ndarray:
    return gamma * np.where(w > 0, w, alpha * np.expm1(np.minimum(w, 0)))


def selu(
    x: np.ndarray, alpha: float = 1.6732631921768188, gamma: float = 1.0507010221481323, **_attrs: Any
) -> np.ndarray:
    """The same function for every version (the defaults come from the schema in force)."""
    return apply_float("Selu", _selu, x, alpha=alpha, gamma=gamma)


KERNELS = (Kernel("Selu", (1, 6, 22), selu),)
