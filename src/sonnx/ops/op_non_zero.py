"""NonZero: the indices of the nonzero elements, as an int64 tensor of shape [rank, count].

Column j holds the coordinates of the j-th nonzero element in row-major
order (NumPy's ``nonzero``, stacked). A scalar gives shape [0, count]. NaN is
nonzero; a string is nonzero when it is not empty. Versions 9 and 13 differ
only in the element types they admit (13 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._convert import is_text
from .base import Kernel


def non_zero(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions 9 and 13."""
    mask = (x.astype(np.str_) != "") if is_text(x.dtype) else (x != 0)
    if x.ndim == 0:
        return np.zeros((0, int(bool(mask))), dtype=np.int64)
    return np.array(np.nonzero(mask), dtype=np.int64).reshape(x.ndim, -1)


KERNELS = (Kernel("NonZero", (9, 13), non_zero),)
