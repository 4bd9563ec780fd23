"""Hardmax: 1 at the first maximum of each lane, 0 elsewhere, in x's type.

Versions (``_softmax_like``): 1 and 11 take the maximum over each row of the
2-D view at ``axis``, 13 along ``axis`` only. Ties go to the lowest index; a
NaN counts as the maximum (the first NaN wins).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import require_float, working
from ._softmax_like import softmax_like_kernels


def _hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    require_float(x, "Hardmax")
    out = np.zeros(x.shape, dtype=x.dtype)
    if x.size == 0:
        return out
    first = np.argmax(working(x), axis=axis, keepdims=True)
    np.put_along_axis(out, first, np.ones((), dtype=x.dtype), axis=axis)
    return out


KERNELS = softmax_like_kernels("Hardmax", _hardmax)
