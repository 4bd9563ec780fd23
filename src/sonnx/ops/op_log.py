"""Log: natural logarithm (log 0 = -inf, log of a negative number = NaN), element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def log_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


KERNELS = (Kernel("Log", (1, 6, 13), log_),)
