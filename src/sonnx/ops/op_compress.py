"""Compress: the slices along ``axis`` whose ``condition`` entry is True (NumPy's ``compress``).

Without ``axis`` the input is flattened first. ``condition`` is a 1-D
boolean tensor; it may be shorter than the axis (the slices past its end are
dropped); entries past the end of the axis must be False. Version 9 does not
define a negative axis and refuses one; 11 counts it from the back; 28 only
admits bfloat16.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _compress(x: np.ndarray, condition: np.ndarray, axis: int | None) -> np.ndarray:
    if condition.ndim != 1:
        raise ValueError(f"Compress: condition must be 1-D, got shape {condition.shape}")
    if axis is None:
        x, ax = x.reshape(-1), 0
    elif -x.ndim <= axis < x.ndim:
        ax = axis + x.ndim if axis < 0 else axis
    else:
        raise ValueError(f"Compress: axis {axis} outside rank {x.ndim}")
    keep = condition.astype(np.bool_)
    n = x.shape[ax]
    if keep.shape[0] > n and keep[n:].any():
        raise ValueError(f"Compress: condition selects index {n + int(np.argmax(keep[n:]))} of an axis of {n}")
    return np.take(x, np.nonzero(keep[:n])[0], axis=ax)


def compress_9(x: np.ndarray, condition: np.ndarray, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Version 9: a negative axis is refused."""
    if axis is not None and axis < 0:
        raise ValueError(f"Compress-9: negative axis {axis}")
    return _compress(x, condition, axis)


def compress(x: np.ndarray, condition: np.ndarray, axis: int | None = None, **_attrs: Any) -> np.ndarray:
    """Versions 11 and 28."""
    return _compress(x, condition, axis)


KERNELS = (
    Kernel("Compress", (9,), compress_9),
    Kernel("Compress", (11, 28), compress),
)
