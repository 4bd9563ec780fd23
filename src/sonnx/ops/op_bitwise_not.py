"""BitwiseNot: every bit of an integer tensor inverted (~x; -x - 1 for signed types), element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_integer
from .base import Kernel


def bitwise_not(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """The only version (18)."""
    require_integer(x, "BitwiseNot")
    return np.asarray(np.invert(x)).astype(x.dtype, copy=False)


KERNELS = (Kernel("BitwiseNot", (18,), bitwise_not),)
