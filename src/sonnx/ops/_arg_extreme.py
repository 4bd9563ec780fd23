"""What ArgMax and ArgMin share: the index (int64) of the extreme element along one axis.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the extreme value (NumPy's rule; ONNX does not
say): the largest for ArgMax, the smallest for ArgMin. Version 1 did not
define negative axes (introduced in version 11) and refuses them.
"""

from __future__ import annotations

import numpy as np


def arg_extreme(
    x: np.ndarray, axis: int, keepdims: int, select_last_index: int, *, largest: bool, operator: str
) -> np.ndarray:
    """The index of the largest (``largest``) or smallest element of ``x`` along ``axis``."""
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError(f"{operator}: axis {axis} outside rank {x.ndim}")
    ax = axis + x.ndim if axis < 0 else axis
    if x.ndim and x.shape[ax] == 0:
        raise ValueError(f"{operator} over an empty axis has no result")
    pick = np.argmax if largest else np.argmin
    if select_last_index:
        n = x.shape[ax]
        idx = (n - 1) - pick(np.flip(x, axis=ax), axis=ax, keepdims=bool(keepdims))
    else:
        idx = pick(x, axis=ax, keepdims=bool(keepdims))
    return np.asarray(idx, dtype=np.int64)


def non_negative_axis(axis: int, operator: str) -> int:
    """Version 1: a negative axis is not defined, refused."""
    if axis < 0:
        raise ValueError(f"{operator}-1: negative axis {axis}")
    return axis
