"""MatMul: matrix product with NumPy's ``matmul`` semantics (1-D operands promoted, batch dims broadcast)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def mat_mul(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """All versions (later ones admit more element types)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("MatMul: operands must have rank 1 or more")
    if a.dtype != b.dtype:
        raise ValueError(f"MatMul: operands of different element types {a.dtype} and {b.dtype}")
    return np.asarray(np.matmul(a, b)).astype(a.dtype, copy=False)


KERNELS = (Kernel("MatMul", (1, 9, 13), mat_mul),)
