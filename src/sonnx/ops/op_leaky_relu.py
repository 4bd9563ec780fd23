"""LeakyRelu: x for x >= 0, alpha * x for x < 0, element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def leaky_relu(x: np.ndarray, alpha: float = 0.01, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    scaled = x * np.asarray(alpha, dtype=x.dtype)
    return np.where(x < 0, scaled, x).astype(x.dtype, copy=False)


KERNELS = (Kernel("LeakyRelu", (1, 6, 16), leaky_relu),)
