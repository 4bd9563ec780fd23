"""Gather: take the entries of ``data`` along ``axis`` at the given indices."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def gather_1(data: np.ndarray, indices: np.ndarray, axis: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 1: as 11, but indices must be in [0, n-1] (negative indices are introduced by Gather-11)."""
    if indices.size and np.issubdtype(indices.dtype, np.integer) and indices.min() < 0:
        raise ValueError("Gather-1: negative index (allowed from opset 11)")
    return gather(data, indices, axis=axis)


def gather(data: np.ndarray, indices: np.ndarray, axis: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 11 on: output shape data.shape[:axis] + indices.shape + data.shape[axis+1:].

    Negative indices count from the back of the axis; an index outside
    [-n, n-1] is refused.
    """
    if not -data.ndim <= axis < data.ndim:
        raise ValueError(f"Gather: axis {axis} outside rank {data.ndim}")
    if indices.dtype.kind not in "iu":  # NumPy's integer types (np.integer) and no other
        raise ValueError(f"Gather: indices must be integers, got {indices.dtype}")
    ax = axis + data.ndim if axis < 0 else axis
    n = data.shape[ax]
    idx = indices.astype(np.int64, copy=False)
    if idx.ndim == 0:  # one index (a shape's entry, say): compared as a Python int, no reductions
        low = high = int(idx)
    elif idx.size:
        low, high = int(idx.min()), int(idx.max())
    else:
        low, high = 0, -1
    if low < -n or high >= n:
        raise ValueError(f"Gather: an index lies outside [{-n}, {n - 1}]")
    # np.take counts an index in [-n, -1] from the back, as Gather does (the range is checked above)
    return np.take(data, idx, axis=ax)


KERNELS = (
    Kernel("Gather", (1,), gather_1),
    Kernel("Gather", (11, 13), gather),
)
