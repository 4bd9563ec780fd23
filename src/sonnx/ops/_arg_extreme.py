"""What ArgMax and ArgMin share: the index (int64) of the extreme element along one axis.

Ties go to the first occurrence, or to the last with ``select_last_index``
(opset 12 on). NaN counts as the extreme value (NumPy's rule; ONNX does not
say): the largest for ArgMax, the smallest for ArgMin. Version 1 did not
define negative axes (introduced in version 11) and refuses them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import KernelFn, named


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


def arg_extreme_versions(operator: str, largest: bool, name: str) -> tuple[KernelFn, KernelFn]:
    """The kernels of ArgMax or ArgMin: (version 11 on, version 1, which refuses a negative axis)."""

    def later(x: np.ndarray, axis: int = 0, keepdims: int = 1, select_last_index: int = 0, **_attrs: Any) -> np.ndarray:
        return arg_extreme(x, axis, keepdims, select_last_index, largest=largest, operator=operator)

    def version_1(x: np.ndarray, axis: int = 0, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
        return later(x, axis=non_negative_axis(axis, operator), keepdims=keepdims)

    return (
        named(later, name, "Opset 11 on (``select_last_index`` exists from 12)."),
        named(version_1, f"{name}_1", "Opset 1: as later versions, but a negative axis is refused."),
    )
