"""DequantizeLinear: ``y = (x - x_zero_point) * x_scale``.

The zero point defaults to 0 and must be 0 for int32 data. ``x - x_zero_point``
is exact (integers in int64, floats in float64); it is then converted to the
output type, in which the multiplication is done. The output type is float32
in versions 10 and 13, the scale's type in 19 and 21, and ``output_dtype``
(default: the scale's type) from 23 on; a float8e8m0 scale (version 24 on) is
not an output type, so it needs ``output_dtype``. The granularity (per tensor,
per axis, blocked) follows from the scale's shape as for QuantizeLinear.

Versions: 10 (per tensor only), 13 (per axis), 19 (float8 data, float16 and
bfloat16 scales), 21 (blocked, 16- and 4-bit integers), 23 (float4,
``output_dtype``), 24 (float8e8m0 scales), 25 (2-bit integers), 28 (float6).
Versions 13 on share one function: an attribute a version lacks has its default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import check_zero_point, element_type, expand_parameter, is_integer, is_real_float, per_tensor_version
from .base import Kernel


def dequantize_linear(
    x: np.ndarray,
    x_scale: np.ndarray,
    x_zero_point: np.ndarray | None = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    output_dtype: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """DequantizeLinear-13 to -28."""
    out = element_type(output_dtype, "output_dtype") if output_dtype else x_scale.dtype
    if not is_real_float(out):
        raise ValueError(f"the output type {out} is not a floating-point type (a float8e8m0 scale needs output_dtype)")
    exact = np.dtype(np.int64) if is_integer(x.dtype) else np.dtype(np.float64)
    diff = x.astype(exact)
    if x_zero_point is not None:
        if x_zero_point.dtype != x.dtype:
            raise ValueError(f"x_zero_point is {x_zero_point.dtype}, x is {x.dtype}; they must have one type")
        check_zero_point(x_zero_point, x_scale, "x_zero_point")
        if x.dtype == np.int32 and np.any(x_zero_point != 0):
            raise ValueError("int32 data has no zero point (it must be 0)")
        diff = diff - expand_parameter(x_zero_point, x.shape, int(axis), int(block_size), "x_zero_point").astype(exact)
    scale = expand_parameter(x_scale, x.shape, int(axis), int(block_size), "x_scale").astype(out)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(diff.astype(out) * scale).astype(out, copy=False)


dequantize_linear_v10 = per_tensor_version(
    dequantize_linear, "dequantize_linear_v10",
    "DequantizeLinear-10 dequantizes per tensor: x_scale and x_zero_point must be scalars"
)

KERNELS = (
    Kernel("DequantizeLinear", (10,), dequantize_linear_v10),
    Kernel("DequantizeLinear", (13, 19, 21, 23, 24, 25, 28), dequantize_linear),
)
