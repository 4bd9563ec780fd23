"""DynamicQuantizeLinear: quantize float32 data to uint8 with a scale and zero point computed from the data.

With ``lo = min(0, min(x))`` and ``hi = max(0, max(x))`` (the range always
holds 0): ``y_scale = (hi - lo) / 255``, ``y_zero_point = saturate(round(0 -
lo / y_scale))`` and ``y = saturate(round(x / y_scale) + y_zero_point)``, all
in float32, rounding half to even, saturating to [0, 255]. One version (11).

Interpretation: when the range is empty (x all zeros, or no elements) the
formulas divide 0 by 0; sonnx gives ``y_scale = 0``, ``y_zero_point = 0`` and
``y = 0``, the only values that dequantize back to x. NaN elements are left
out of the range and quantize to the zero point.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def dynamic_quantize_linear(x: np.ndarray, **_attrs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DynamicQuantizeLinear-11."""
    xf = x.astype(np.float32, copy=False)
    zero = np.float32(0)
    finite = xf[~np.isnan(xf)]
    lo = np.minimum(zero, finite.min()) if finite.size else zero
    hi = np.maximum(zero, finite.max()) if finite.size else zero
    scale = np.float32((hi - lo) / np.float32(255))
    if scale == 0:
        return np.zeros(x.shape, np.uint8), np.asarray(scale, np.float32), np.asarray(0, np.uint8)
    zp = np.clip(np.rint(zero - lo / scale), 0, 255)
    with np.errstate(invalid="ignore"):
        q = np.clip(np.rint(xf / scale) + zp, 0, 255)
    q[np.isnan(q)] = zp
    return q.astype(np.uint8), np.asarray(scale, np.float32), np.asarray(zp).astype(np.uint8)


KERNELS = (Kernel("DynamicQuantizeLinear", (11,), dynamic_quantize_linear),)
