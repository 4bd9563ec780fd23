"""MatMul: matrix product with NumPy's ``matmul`` semantics (1-D operands promoted, batch dims broadcast).

Summation order (spec reading A9, "Accumulation order and rounding"): ONNX
leaves the order of MatMul's sums to the implementation, and each
implementation fixes its own. This kernel fixes it from the operands' shapes
and element type alone, so that one model always runs the same products:

* when B is a matrix and A has batch dimensions, the batch dimensions of A are
  folded into its rows, ``(..., M, K) @ (K, N)`` computed as one
  ``(prod(...) * M, K) @ (K, N)`` product. Row ``r`` of the result depends
  only on row ``r`` of A and on B, so the fold computes the same sums as the
  batched form, in BLAS's order for one large product instead of one per
  batch entry (for ``M = 1``, a matrix-vector product per entry).
  onnxruntime's MatMul folds in the same case;
* every other case is NumPy's ``matmul`` as it is.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import Kernel


def mat_mul(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
    """All versions (later ones admit more element types)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("MatMul: operands must have rank 1 or more")
    if a.dtype != b.dtype:
        raise ValueError(f"MatMul: operands of different element types {a.dtype} and {b.dtype}")
    if a.ndim > 2 and b.ndim == 2:
        if a.shape[-1] != b.shape[0]:
            raise ValueError(f"MatMul: shapes {a.shape} and {b.shape} do not match in the summed dimension")
        rows = np.matmul(a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b)
        return np.asarray(rows).reshape(*a.shape[:-1], b.shape[1]).astype(a.dtype, copy=False)
    return np.asarray(np.matmul(a, b)).astype(a.dtype, copy=False)


KERNELS = (Kernel("MatMul", (1, 9, 13), mat_mul),)
