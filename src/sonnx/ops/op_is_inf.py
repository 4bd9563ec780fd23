"""IsInf: a bool tensor, true where x is +inf (if ``detect_positive``) or -inf (if ``detect_negative``).

Version 20 admits bfloat16 and the float8 types besides version 10's float32
and float64 (float8 types without infinities give false everywhere).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_float, working
from .base import Kernel


def is_inf(x: np.ndarray, detect_negative: int = 1, detect_positive: int = 1, **_attrs: Any) -> np.ndarray:
    """Versions 10 and 20 differ only in the element types they admit."""
    require_float(x, "IsInf")
    w = working(x)
    positive = np.isposinf(w) if detect_positive else np.zeros(w.shape, dtype=np.bool_)
    negative = np.isneginf(w) if detect_negative else np.zeros(w.shape, dtype=np.bool_)
    return np.asarray(positive | negative, dtype=np.bool_)


KERNELS = (Kernel("IsInf", (10, 20), is_inf),)
