"""Softmax: exp(x) / sum(exp(x)), computed after subtracting the maximum (same value, no overflow).

Softmax-1 and -11 view the input as a 2-D matrix, the dimensions before
``axis`` forming the rows and those from ``axis`` the columns, and normalise
each row: the sum runs over the whole flattened trailing part. Softmax-13
normalises along ``axis`` alone. The two agree only when ``axis`` is the last
dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._softmax_like import check_axis
from .base import Kernel


def _normalised(x: np.ndarray, axis: int) -> np.ndarray:
    # a row of -inf (fully masked attention) gives NaN, as the formula does: not worth a warning
    with np.errstate(invalid="ignore"):
        # the reductions np.max and np.sum perform, called directly (their Python wrappers cost more than the
        # arithmetic on small tensors)
        shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
        e = np.exp(shifted)
        return (e / np.add.reduce(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)


def _coerced(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    rows = int(np.prod(x.shape[:axis], dtype=np.int64))
    matrix = x.reshape(rows, -1) if x.size else x.reshape(rows, int(np.prod(x.shape[axis:], dtype=np.int64)))
    return _normalised(matrix, 1).reshape(x.shape)


def softmax_1(x: np.ndarray, axis: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: 2-D coercion at a non-negative ``axis`` (default 1)."""
    return _coerced(x, check_axis(x, axis, "Softmax", allow_negative=False))


def softmax_11(x: np.ndarray, axis: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 11: 2-D coercion at ``axis`` (default 1, negative counting from the back)."""
    return _coerced(x, check_axis(x, axis, "Softmax", allow_negative=True))


def softmax(x: np.ndarray, axis: int = -1, **_attrs: Any) -> np.ndarray:
    """Opset 13: along ``axis`` only (default -1)."""
    if x.ndim == 0:
        return np.ones_like(x)
    return _normalised(x, check_axis(x, axis, "Softmax", allow_negative=True))


KERNELS = (
    Kernel("Softmax", (1,), softmax_1),
    Kernel("Softmax", (11,), softmax_11),
    Kernel("Softmax", (13,), softmax),
)
