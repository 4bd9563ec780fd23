"""QLinearMatMul: a matrix product of quantized operands, its result quantized again.

``acc = (a - a_zero_point) @ (b - b_zero_point)`` (NumPy matmul semantics,
exact sums), then ``y = saturate(round(acc * a_scale * b_scale / y_scale) +
y_zero_point)``, rounding half to even for integer types, to nearest even
(saturating) for float8 types. ``a``'s scale and zero point are per tensor or
per row (``M`` values, or shaped ``[..., M, 1]``), ``b``'s per tensor or per
column (``N`` values, or ``[..., 1, N]``), ``y``'s per tensor. sonnx computes
the rescaling in float64 from the exact sums, so the result is rounded once.

Versions: 10 (int8/uint8, float32 scales), 21 (float8 operands, float16 and
bfloat16 scales); they compute alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import matmul_column_parameter, matmul_row_parameter, quantize_values, shifted
from .base import Kernel


def _same_shape(scale: np.ndarray, zero_point: np.ndarray, what: str) -> None:
    if scale.shape != zero_point.shape and not (scale.size == 1 and zero_point.size == 1):
        raise ValueError(f"{what}'s scale {scale.shape} and zero point {zero_point.shape} differ in shape")


def qlinear_mat_mul(
    a: np.ndarray,
    a_scale: np.ndarray,
    a_zero_point: np.ndarray,
    b: np.ndarray,
    b_scale: np.ndarray,
    b_zero_point: np.ndarray,
    y_scale: np.ndarray,
    y_zero_point: np.ndarray,
    **_attrs: Any,
) -> np.ndarray:
    """QLinearMatMul-10 and -21."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("QLinearMatMul: operands must have rank 1 or more")
    _same_shape(a_scale, a_zero_point, "a")
    _same_shape(b_scale, b_zero_point, "b")
    _same_shape(y_scale, y_zero_point, "y")
    acc = np.matmul(
        shifted(a, matmul_row_parameter(a_zero_point, a, "a_zero_point")),
        shifted(b, matmul_column_parameter(b_zero_point, b, "b_zero_point")),
    )
    sa = matmul_row_parameter(a_scale, a, "a_scale").astype(np.float64)
    sb = matmul_column_parameter(b_scale, b, "b_scale").astype(np.float64)
    real = np.asarray(acc, dtype=np.float64) * sa * sb
    try:
        ys, yz = np.broadcast_arrays(y_scale, y_zero_point, real)[:2]
    except ValueError:
        raise ValueError(f"y_scale of shape {y_scale.shape} does not broadcast to the product {real.shape}") from None
    return quantize_values(real, ys, yz, y_zero_point.dtype, np.dtype(np.float64), True)


KERNELS = (Kernel("QLinearMatMul", (10, 21), qlinear_mat_mul),)
