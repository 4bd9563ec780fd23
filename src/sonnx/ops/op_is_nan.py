"""IsNaN: a bool tensor, true where x is NaN, element-wise.

Versions 9, 13 and 20 differ only in the element types they admit (13 adds
bfloat16, 20 the float8 types).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_float, working
from .base import Kernel


def is_nan(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """The same function for every version."""
    require_float(x, "IsNaN")
    return np.asarray(np.isnan(working(x)), dtype=np.bool_)


KERNELS = (Kernel("IsNaN", (9, 13, 20), is_nan),)
