"""ArgMin: the index (int64) of the smallest element along ``axis``.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the smallest value (NumPy's rule; ONNX does not
say). Version 1 refuses a negative axis (defined from version 11). The code is
shared with ArgMax (:mod:`sonnx.ops._arg_extreme`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arg_extreme import arg_extreme, non_negative_axis
from .base import Kernel


def arg_min_1(x: np.ndarray, axis: int = 0, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as later versions, but a negative axis is refused."""
    return arg_min(x, axis=non_negative_axis(axis, "ArgMin"), keepdims=keepdims)


def arg_min(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 11 on (``select_last_index`` exists from 12)."""
    return arg_extreme(x, axis, keepdims, select_last_index, largest=False, operator="ArgMin")


KERNELS = (
    Kernel("ArgMin", (1,), arg_min_1),
    Kernel("ArgMin", (11, 12, 13), arg_min),
)
