"""HardSigmoid: max(0, min(1, alpha * x + beta)), element-wise.

Versions differ only in the element types they admit (22 adds bfloat16; 1 has
the ignored ``consumed_inputs``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _hard_sigmoid(w: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return np.clip(alpha * w + beta, 0, 1)


def hard_sigmoid(x: np.ndarray, alpha: float = 0.2, beta: float = 0.5, **_attrs: Any) -> np.ndarray:
    """The same function for every version."""
    return apply_float("HardSigmoid", _hard_sigmoid, x, alpha=alpha, beta=beta)


KERNELS = (Kernel("HardSigmoid", (1, 6, 22), hard_sigmoid),)
