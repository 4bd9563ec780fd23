"""Flatten: a 2-D matrix whose rows are the dimensions before ``axis`` and columns those from it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import Kernel


def _flatten(x: np.ndarray, axis: int) -> np.ndarray:
    # math.prod of Python ints: the same numbers as NumPy's int64 product for any shape NumPy can hold, without
    # two array round trips
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


def flatten_nonnegative(x: np.ndarray, axis: int = 1, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 9: ``axis`` in [0, rank]."""
    if not 0 <= axis <= x.ndim:
        raise ValueError(f"Flatten: axis {axis} outside [0, {x.ndim}]")
    return _flatten(x, axis)


def flatten(x: np.ndarray, axis: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 11 on: ``axis`` in [-rank, rank], negative counting from the back."""
    if not -x.ndim <= axis <= x.ndim:
        raise ValueError(f"Flatten: axis {axis} outside [{-x.ndim}, {x.ndim}]")
    return _flatten(x, axis + x.ndim if axis < 0 else axis)


KERNELS = (
    Kernel("Flatten", (1, 9), flatten_nonnegative),
    Kernel("Flatten", (11, 13, 21, 23, 24, 25), flatten),
)
