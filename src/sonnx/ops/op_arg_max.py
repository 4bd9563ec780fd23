"""ArgMax: the index (int64) of the largest element along ``axis``.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the largest value (NumPy's rule; ONNX does not
say).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def arg_max_1(x: np.ndarray, axis: int = 0, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as later versions, but a negative axis is not defined (introduced by ArgMax-11) and is refused."""
    if axis < 0:
        raise ValueError(f"ArgMax-1: negative axis {axis}")
    return arg_max(x, axis=axis, keepdims=keepdims)


def arg_max(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 11 on (``select_last_index`` exists from 12)."""
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError(f"ArgMax: axis {axis} outside rank {x.ndim}")
    ax = axis + x.ndim if axis < 0 else axis
    if x.ndim and x.shape[ax] == 0:
        raise ValueError("ArgMax over an empty axis has no result")
    if select_last_index:
        n = x.shape[ax]
        idx = (n - 1) - np.argmax(np.flip(x, axis=ax), axis=ax, keepdims=bool(keepdims))
    else:
        idx = np.argmax(x, axis=ax, keepdims=bool(keepdims))
    return np.asarray(idx, dtype=np.int64)


KERNELS = (
    Kernel("ArgMax", (1,), arg_max_1),
    Kernel("ArgMax", (11, 12, 13), arg_max),
)
