"""ArgMax: the index (int64) of the largest element along ``axis``.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the largest value (NumPy's rule; ONNX does not
say). The code is shared with ArgMin (:mod:`sonnx.ops._arg_extreme`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arg_extreme import arg_extreme, non_negative_axis
from .base import Kernel


def arg_max_1(x: np.ndarray, axis: int = 0, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as later versions, but a negative axis is not defined (introduced by ArgMax-11) and is refused."""
    return arg_max(x, axis=non_negative_axis(axis, "ArgMax"), keepdims=keepdims)


def arg_max(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 11 on (``select_last_index`` exists from 12)."""
    return arg_extreme(x, axis, keepdims, select_last_index, largest=True, operator="ArgMax")


KERNELS = (
    Kernel("ArgMax", (1,), arg_max_1),
    Kernel("ArgMax", (11, 12, 13), arg_max),
)
