"""Binarizer (ai.onnx.ml): ``Y = 1 if X > threshold else 0``, element-wise, in X's type.

NaN is not greater than the threshold and maps to 0. [Non-normative:
onnxruntime refuses NaN inputs.]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def binarizer(x: np.ndarray, *, threshold: float = 0.0, **_attrs: Any) -> np.ndarray:
    """Version 1 (the only one); the float threshold compares with the value as a float."""
    with np.errstate(invalid="ignore"):
        return (x.astype(np.float64) > np.float64(np.float32(threshold))).astype(x.dtype)


KERNELS = (Kernel("Binarizer", (1,), binarizer, domain="ai.onnx.ml"),)
