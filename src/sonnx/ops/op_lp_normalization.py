"""LpNormalization: ``output = input / ||input||_p`` along ``axis``, with ``p`` 1 or 2.

Where the norm is zero (all elements along the axis are zero) the output is
zero. Computed in at least float32. Versions 1 and 22 differ only in the
types they admit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._windows import accumulation_dtype
from .base import Kernel


def lp_normalization(x: np.ndarray, *, axis: int = -1, p: int = 2, **_attrs: Any) -> np.ndarray:
    """LpNormalization-1 and -22."""
    if p not in (1, 2):
        raise ValueError(f"p must be 1 or 2, not {p}")
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError(f"axis {axis} outside the rank {x.ndim} of the input")
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    xa = x.astype(acc)
    ax = axis if x.ndim else None
    if p == 1:
        norm = np.abs(xa).sum(axis=ax, keepdims=True)
    else:
        norm = np.sqrt((xa * xa).sum(axis=ax, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(norm == 0, acc.type(0), xa / norm)
    return y.astype(x.dtype)


KERNELS = (Kernel("LpNormalization", (1, 22), lp_normalization),)
