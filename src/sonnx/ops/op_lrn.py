"""LRN: local response normalization across channels.

``square_sum[n, c, ...] = sum of X[n, i, ...]**2`` for ``i`` from
``max(0, c - floor((size - 1) / 2))`` to ``min(C - 1, c + ceil((size - 1) / 2))``;
``Y = X / (bias + alpha / size * square_sum) ** beta``. Versions 1 and 13
differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._windows import accumulation_dtype
from .base import Kernel


def lrn(
    x: np.ndarray,
    *,
    size: int,
    alpha: float = 0.0001,
    beta: float = 0.75,
    bias: float = 1.0,
    **_attrs: object,
) -> np.ndarray:
    """LRN-1, -13."""
    if x.ndim < 2:
        raise ValueError(f"X must have shape N x C x ..., not rank {x.ndim}")
    size = int(size)
    if size < 1:
        raise ValueError(f"size must be positive, not {size}")
    acc = accumulation_dtype(x.dtype)
    xa = x.astype(acc, copy=False)
    channels = x.shape[1]
    before = (size - 1) // 2
    squares = np.zeros((x.shape[0], channels + size - 1, *x.shape[2:]), dtype=acc)
    squares[:, before : before + channels] = xa * xa
    total = np.zeros(xa.shape, dtype=acc)
    for k in range(size):
        total += squares[:, k : k + channels]
    y = xa / (acc.type(bias) + acc.type(alpha / size) * total) ** acc.type(beta)
    return np.asarray(y, dtype=x.dtype)


KERNELS = (Kernel("LRN", (1, 13), lrn),)
