"""EyeLike: a matrix of the input's (2-D) shape with ones on diagonal ``k`` (y[i, i + k] = 1), zeros elsewhere.

The element type is ``dtype`` when given, the input's otherwise. Versions 9
and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._convert import is_text
from .base import Kernel
from .op_cast import target_dtype


def eye_like(x: np.ndarray, dtype: int | None = None, k: int = 0, **_attrs: Any) -> np.ndarray:
    """Versions 9 and 22."""
    if x.ndim != 2:
        raise ValueError(f"EyeLike: the input must have rank 2, got rank {x.ndim}")
    out = x.dtype if dtype is None else target_dtype(dtype, "EyeLike")
    if is_text(out) or out.kind == "c":
        raise ValueError(f"EyeLike: element type {out} is not allowed")
    return np.eye(x.shape[0], x.shape[1], k=k, dtype=np.float32).astype(out)


KERNELS = (Kernel("EyeLike", (9, 22), eye_like),)
