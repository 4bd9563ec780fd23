"""Det: the determinant of each square matrix in the last two axes of ``X`` (shape ``[*, M, M]`` -> ``[*]``).

Computed by LU factorisation (``numpy.linalg.det``); float16 and bfloat16 are
computed in float32 and rounded back. Versions 11 and 22 differ only in the
element types (22 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._windows import accumulation_dtype
from .base import Kernel


def det(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Det-11, -22."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Det: X must have shape [*, M, M], got {list(x.shape)}")
    if x.dtype.kind not in "fV":
        raise ValueError(f"Det: X must be a floating-point tensor, got {x.dtype}")
    acc = accumulation_dtype(x.dtype)
    return np.asarray(np.linalg.det(x.astype(acc, copy=False))).astype(x.dtype, copy=False)


KERNELS = (Kernel("Det", (11, 22), det),)
