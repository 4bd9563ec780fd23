"""QuantizeLinear: ``y = saturate(round(x / y_scale) + y_zero_point)``, rounding half to even.

The element type of ``y`` is the zero point's; without a zero point it is
``output_dtype`` (version 21 on) or uint8. Integer results are clipped to the
type's range; float8/float6/float4 results round to nearest even, with the
float8 overflow rule chosen by ``saturate`` (see ``_quantize``). The
granularity (per tensor, per axis, blocked) follows from the scale's shape.

Versions: 10 (per tensor only, float32 scale), 13 (per axis, ``axis``), 19
(float8 targets, ``saturate``, scale of x's type), 21 (blocked quantization
with ``block_size``, ``output_dtype``, 16- and 4-bit integers), 23 (float4,
``precision``: the type the division is done in, the scale's type by
default), 24 (float8e8m0 scales), 25 (2-bit integers), 28 (float6). An
attribute a version lacks has its default (which reproduces that version), so
versions 13 on share one function. The division is done in the scale's type;
for an int32 or float8e8m0 scale, which have no arithmetic of their own,
sonnx divides in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import (
    NARROW_FLOATS,
    check_zero_point,
    element_type,
    expand_parameter,
    is_integer,
    is_real_float,
    per_tensor_version,
    quantize_values,
)
from .base import Kernel


def _target(y_zero_point: np.ndarray | None, output_dtype: int) -> np.dtype[Any]:
    if output_dtype:
        target = element_type(output_dtype, "output_dtype")
        if y_zero_point is not None and y_zero_point.dtype != target:
            raise ValueError(f"output_dtype {target} differs from the zero point's type {y_zero_point.dtype}")
    elif y_zero_point is not None:
        target = y_zero_point.dtype
    else:
        target = np.dtype(np.uint8)
    if not (is_integer(target) or target in NARROW_FLOATS):
        raise ValueError(f"{target} is not a quantized element type")
    return target


def _precision(y_scale: np.ndarray, precision: int) -> np.dtype[Any]:
    if precision:
        p = element_type(precision, "precision")
        if not is_real_float(p):
            raise ValueError(f"precision must name a floating-point type, not {p}")
        return p
    return y_scale.dtype if is_real_float(y_scale.dtype) else np.dtype(np.float32)


def quantize_linear(
    x: np.ndarray,
    y_scale: np.ndarray,
    y_zero_point: np.ndarray | None = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    saturate: int = 1,
    output_dtype: int = 0,
    precision: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """QuantizeLinear-13 to -28."""
    target = _target(y_zero_point, int(output_dtype))
    scale = expand_parameter(y_scale, x.shape, int(axis), int(block_size), "y_scale")
    zero = None
    if y_zero_point is not None:
        check_zero_point(y_zero_point, y_scale, "y_zero_point")
        zero = expand_parameter(y_zero_point, x.shape, int(axis), int(block_size), "y_zero_point")
    return quantize_values(x, scale, zero, target, _precision(y_scale, int(precision)), bool(saturate))


quantize_linear_v10 = per_tensor_version(
    quantize_linear, "quantize_linear_v10",
    "QuantizeLinear-10 quantizes per tensor: y_scale and y_zero_point must be scalars"
)

KERNELS = (
    Kernel("QuantizeLinear", (10,), quantize_linear_v10),
    Kernel("QuantizeLinear", (13, 19, 21, 23, 24, 25, 28), quantize_linear),
)
