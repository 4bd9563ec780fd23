"""Size: the number of elements of the input, as an int64 scalar.

Versions differ only in the element types they admit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def size(data: np.ndarray, **_attrs: Any) -> np.ndarray:
    """All versions."""
    return np.asarray(data.size, dtype=np.int64)


KERNELS = (Kernel("Size", (1, 13, 19, 21, 23, 24, 25), size),)
