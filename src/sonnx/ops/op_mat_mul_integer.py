"""MatMulInteger: ``Y = (A - a_zero_point) @ (B - b_zero_point)`` in int32, with NumPy's matmul semantics.

``a_zero_point`` is per tensor (one element) or per row of A (``M`` values for
A of shape ``[..., M, K]``, as a 1-D tensor or shaped ``[..., M, 1]``);
``b_zero_point`` is per tensor or per column of B (``N`` values, or
``[..., 1, N]``). Both default to 0. The sums are formed exactly and wrap to
32 bits (the text allows overflow only of a 32-bit accumulation). One version (10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import matmul_column_parameter, matmul_row_parameter, shifted
from .base import Kernel


def mat_mul_integer(
    a: np.ndarray,
    b: np.ndarray,
    a_zero_point: np.ndarray | None = None,
    b_zero_point: np.ndarray | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """MatMulInteger-10."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("MatMulInteger: operands must have rank 1 or more")
    azp = None if a_zero_point is None else matmul_row_parameter(a_zero_point, a, "a_zero_point")
    bzp = None if b_zero_point is None else matmul_column_parameter(b_zero_point, b, "b_zero_point")
    return np.asarray(np.matmul(shifted(a, azp), shifted(b, bzp))).astype(np.int32)


KERNELS = (Kernel("MatMulInteger", (10,), mat_mul_integer),)
