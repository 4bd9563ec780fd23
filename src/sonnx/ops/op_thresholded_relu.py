"""ThresholdedRelu: x for x > alpha, 0 otherwise, element-wise.

Versions 10 and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float
from .base import Kernel


def _thresholded_relu(w: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(w > alpha, w, 0)


def thresholded_relu(x: np.ndarray, alpha: float = 1.0, **_attrs: Any) -> np.ndarray:
    """The same function for both versions."""
    return apply_float("ThresholdedRelu", _thresholded_relu, x, alpha=alpha)


KERNELS = (Kernel("ThresholdedRelu", (10, 22), thresholded_relu),)
