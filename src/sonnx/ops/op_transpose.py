"""Transpose: permute the dimensions (default: reverse them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def transpose(x: np.ndarray, perm: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """All versions: ``perm`` must be a permutation of 0..rank-1."""
    if perm is None:
        return np.transpose(x)
    p = [int(k) for k in perm]
    if sorted(p) != list(range(x.ndim)):
        raise ValueError(f"Transpose: perm {p} is not a permutation of the {x.ndim} dimensions")
    return np.transpose(x, p)


KERNELS = (Kernel("Transpose", (1, 13, 21, 23, 24, 25), transpose),)
