"""PRelu: x for x >= 0, slope * x for x < 0, element-wise, with a slope tensor.

Versions 7, 9 and 16 broadcast the slope to X's shape in one direction (the
result has X's shape; 9 admits int32/int64/uint32/uint64, 16 bfloat16).
Versions 1 and 6 predate broadcasting; their slope is a single value shared
by every element, a tensor of X's shape, or (the channel-wise form the
version 1/6 text implies) one value per channel: a 1-D slope as long as X's
dimension 1. Integer results are computed in the integer type (exact, wrapping
like C on overflow).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._broadcast import broadcasts_to
from ._elementwise import is_float, require_numeric, same_type, working
from .base import Kernel


def _prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    require_numeric(x, "PRelu")
    same_type(x, slope, "PRelu")
    if is_float(x.dtype):
        w = working(x)
        with np.errstate(all="ignore"):
            return np.where(w < 0, w * working(slope), w).astype(x.dtype, copy=False)
    with np.errstate(over="ignore"):
        return np.where(x < 0, x * slope, x).astype(x.dtype, copy=False)


def prelu(x: np.ndarray, slope: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 7 on: the slope is unidirectionally broadcastable to X."""
    if not broadcasts_to(slope.shape, x.shape):
        raise ValueError(f"PRelu's slope {slope.shape} does not broadcast to X's shape {x.shape}")
    return _prelu(x, slope)


def prelu_6(x: np.ndarray, slope: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: one shared slope, one per element, or one per channel (dimension 1)."""
    if slope.size == 1:
        return _prelu(x, slope.reshape(()))
    if slope.shape == x.shape:
        return _prelu(x, slope)
    if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
        return _prelu(x, slope.reshape((-1,) + (1,) * (x.ndim - 2)))
    raise ValueError(
        f"PRelu-1/6's slope must have one element, X's shape {x.shape} or one per channel, got {slope.shape}"
    )


KERNELS = (
    Kernel("PRelu", (1, 6), prelu_6),
    Kernel("PRelu", (7, 9, 16), prelu),
)
