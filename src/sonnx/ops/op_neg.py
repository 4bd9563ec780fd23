"""Neg: -x, element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def neg_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    return np.negative(x)


KERNELS = (Kernel("Neg", (1, 6, 13), neg_),)
