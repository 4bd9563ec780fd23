"""HardSwish: x * max(0, min(1, x / 6 + 1/2)), element-wise: 0 for x <= -3, x for x >= 3.

Versions 14 and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _hard_swish(w: np.ndarray) -> np.ndarray:
    # the two flat pieces selected explicitly, so that x = -inf gives 0 rather than -inf * 0
    return np.where(w <= -3, 0, np.where(w >= 3, w, w * (w / 6 + 0.5)))


def hard_swish(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """The same function for both versions."""
    return apply_float("HardSwish", _hard_swish, x)


KERNELS = (Kernel("HardSwish", (14, 22), hard_swish),)
