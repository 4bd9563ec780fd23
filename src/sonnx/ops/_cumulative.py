"""What CumSum and CumProd share: a running sum/product along one axis, optionally exclusive and reversed.

``exclusive`` shifts the running value by one position (the first output is
the identity: 0 for a sum, 1 for a product); ``reverse`` runs from the end of
the axis. Half-width floats accumulate in float32 and are rounded back;
integers accumulate in their own type (wrapping).
"""

from __future__ import annotations

import numpy as np

from ._precision import working


def scalar_axis(axis: np.ndarray, rank: int, operator: str) -> int:
    """The ``axis`` input (a 0-D integer tensor; one-element tensors accepted) as a non-negative axis."""
    if axis.size != 1 or not np.issubdtype(axis.dtype, np.integer):
        raise ValueError(f"{operator}: axis must be a 0-D integer tensor, got {axis.dtype} {axis.shape}")
    a = int(axis.reshape(()))
    if not -rank <= a < rank:
        raise ValueError(f"{operator}: axis {a} outside rank {rank}")
    return a + rank if a < 0 else a


def cumulative(
    x: np.ndarray, axis: np.ndarray, exclusive: int, reverse: int, *, product: bool, operator: str
) -> np.ndarray:
    """The running sum (or product) of ``x`` along ``axis``."""
    ax = scalar_axis(axis, x.ndim, operator)
    w = working(x)
    if reverse:
        w = np.flip(w, axis=ax)
    with np.errstate(over="ignore"):
        out = (np.cumprod if product else np.cumsum)(w, axis=ax, dtype=w.dtype)
    if exclusive and out.shape[ax] > 0:
        first = np.full_like(np.take(out, [0], axis=ax), 1 if product else 0)
        out = np.concatenate([first, np.take(out, np.arange(out.shape[ax] - 1), axis=ax)], axis=ax)
    if reverse:
        out = np.flip(out, axis=ax)
    return np.ascontiguousarray(out).astype(x.dtype, copy=False)
