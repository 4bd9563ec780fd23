"""OneHot: a tensor one rank larger, ``on_value`` where the new axis' position equals the index, else ``off_value``.

``values`` is [off_value, on_value] and fixes the output type; ``depth``
(one element, any numeric type, truncated to an integer) is the size of the
new dimension, inserted at ``axis`` (in [-r-1, r] for indices of rank r,
default the last). Non-integer indices are truncated to integers. Version 9:
indices outside [0, depth) give an all-off row. From version 11 an index in
[-depth, -1] counts from the back (index + depth) and only indices outside
[-depth, depth - 1] give an all-off row. Version 28 only admits bfloat16
values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, axis: int, wrap: bool) -> np.ndarray:
    if depth.size != 1:
        raise ValueError(f"OneHot: depth must have one element, got shape {depth.shape}")
    n = int(depth.reshape(()))
    if n < 0:
        raise ValueError(f"OneHot: negative depth {n}")
    if values.size != 2:
        raise ValueError(f"OneHot: values must be [off_value, on_value], got shape {values.shape}")
    rank = indices.ndim
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"OneHot: axis {axis} outside [{-rank - 1}, {rank}]")
    ax = axis + rank + 1 if axis < 0 else axis
    with np.errstate(invalid="ignore"):
        idx = indices.astype(np.int64)
    if wrap:
        idx = np.where(idx < 0, idx + n, idx)
    positions = np.arange(n, dtype=np.int64).reshape((n,) + (1,) * (rank - ax))
    hot = np.expand_dims(idx, ax) == positions
    off, on = values.reshape(2)
    return np.where(hot, on, off).astype(values.dtype)


def one_hot_9(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, axis: int = -1, **_: Any) -> np.ndarray:
    """Version 9: negative indices are off."""
    return _one_hot(indices, depth, values, axis, wrap=False)


def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, axis: int = -1, **_: Any) -> np.ndarray:
    """Versions 11 and 28: negative indices count from the back."""
    return _one_hot(indices, depth, values, axis, wrap=True)


KERNELS = (
    Kernel("OneHot", (9,), one_hot_9),
    Kernel("OneHot", (11, 28), one_hot),
)
