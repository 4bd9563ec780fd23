"""GlobalMaxPool: the maximum over all spatial axes, which are kept with extent 1.

Versions 1 and 22 differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._windows import check_spatial_input
from .base import Kernel


def global_max_pool(x: np.ndarray, **_attrs: object) -> np.ndarray:
    """GlobalMaxPool-1, -22."""
    nsp = check_spatial_input(x)
    if any(n == 0 for n in x.shape[2:]):
        raise ValueError("GlobalMaxPool of an empty spatial extent is undefined")
    return np.max(x, axis=tuple(range(2, 2 + nsp)), keepdims=True)


KERNELS = (Kernel("GlobalMaxPool", (1, 22), global_max_pool),)
