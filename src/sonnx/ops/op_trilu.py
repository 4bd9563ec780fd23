"""Trilu: keep the upper (or lower) triangle of the last two dimensions, zero the rest.

For element (i, j) of each [N, M] matrix: ``upper`` keeps j - i >= k, lower
keeps j - i <= k (``k`` defaults to 0, the main diagonal). The rest becomes
zero (False for booleans, the empty string for strings). One version (14).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._convert import is_text
from .base import Kernel


def trilu(x: np.ndarray, k: np.ndarray | None = None, upper: int = 1, **_attrs: Any) -> np.ndarray:
    """Version 14."""
    if x.ndim < 2:
        raise ValueError(f"Trilu: the input must have rank 2 or more, got rank {x.ndim}")
    if k is not None and k.size != 1:
        raise ValueError(f"Trilu: k must be a scalar, got shape {k.shape}")
    diag = 0 if k is None else int(k.reshape(()))
    n, m = x.shape[-2:]
    offset = np.arange(m)[None, :] - np.arange(n)[:, None]  # j - i
    keep = offset >= diag if upper else offset <= diag
    zero = np.asarray("" if is_text(x.dtype) else 0).astype(x.dtype)
    return np.where(keep, x, zero)


KERNELS = (Kernel("Trilu", (14,), trilu),)
