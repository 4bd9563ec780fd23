"""Abs: |x|, element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def abs_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    return np.abs(x)


KERNELS = (Kernel("Abs", (1, 6, 13), abs_),)
