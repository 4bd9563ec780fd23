"""GlobalAveragePool: the mean over all spatial axes, which are kept with extent 1.

Versions 1 and 22 differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._windows import accumulation_dtype, check_spatial_input
from .base import Kernel


def global_average_pool(x: np.ndarray, **_attrs: object) -> np.ndarray:
    """GlobalAveragePool-1, -22 (sums carried in float32 for 16-bit floats)."""
    nsp = check_spatial_input(x)
    axes = tuple(range(2, 2 + nsp))
    return np.mean(x, axis=axes, keepdims=True, dtype=accumulation_dtype(x.dtype)).astype(x.dtype, copy=False)


KERNELS = (Kernel("GlobalAveragePool", (1, 22), global_average_pool),)
