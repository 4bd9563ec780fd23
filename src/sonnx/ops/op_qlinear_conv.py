"""QLinearConv: a convolution of quantized data, its result quantized again.

``acc = Conv(x - x_zero_point, w - w_zero_point) + B`` (exact integer sums;
B is int32, quantized with scale ``x_scale * w_scale`` and zero point 0), then
``y = saturate(round(acc * x_scale * w_scale / y_scale) + y_zero_point)``,
rounding half to even, clipped to y's type. ``x_scale``, ``x_zero_point``,
``y_scale`` and ``y_zero_point`` are per tensor; ``w_scale`` and
``w_zero_point`` per tensor or per output channel (``M`` values). sonnx
computes the rescaling in float64 from the exact sums, so the result is
rounded once. Geometry, groups, strides and dilations are Conv's. One version (10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._quantize import quantize_values
from .base import Kernel
from .op_conv_integer import integer_conv


def _per_tensor(p: np.ndarray, name: str) -> np.ndarray:
    if p.size != 1:
        raise ValueError(f"{name} must be a scalar (per tensor), not of shape {p.shape}")
    return p.reshape(())


def qlinear_conv(
    x: np.ndarray,
    x_scale: np.ndarray,
    x_zero_point: np.ndarray,
    w: np.ndarray,
    w_scale: np.ndarray,
    w_zero_point: np.ndarray,
    y_scale: np.ndarray,
    y_zero_point: np.ndarray,
    b: np.ndarray | None = None,
    **attrs: Any,
) -> np.ndarray:
    """QLinearConv-10."""
    acc = integer_conv(x, x_zero_point, w, w_zero_point, **attrs)
    m = acc.shape[1]
    channel = (-1,) + (1,) * (acc.ndim - 2)
    if w_scale.size == 1:
        ws = w_scale.reshape(()).astype(np.float64)
    elif w_scale.ndim == 1 and w_scale.shape[0] == m:
        ws = w_scale.astype(np.float64).reshape(channel)
    else:
        raise ValueError(f"w_scale of shape {w_scale.shape} is neither a scalar nor one per output channel ({m})")
    if w_zero_point.size != 1 and w_zero_point.shape != w_scale.shape:
        raise ValueError(f"w_zero_point has shape {w_zero_point.shape}, w_scale {w_scale.shape}; they must be equal")
    if b is not None:
        if b.shape != (m,):
            raise ValueError(f"B has shape {b.shape}, want ({m},)")
        acc = acc + b.astype(np.int64).reshape(channel)
    real = acc.astype(np.float64) * _per_tensor(x_scale, "x_scale").astype(np.float64) * ws
    ys = _per_tensor(y_scale, "y_scale")
    yz = _per_tensor(y_zero_point, "y_zero_point")
    return quantize_values(real, ys, yz, y_zero_point.dtype, np.dtype(np.float64), True)


KERNELS = (Kernel("QLinearConv", (10,), qlinear_conv),)
