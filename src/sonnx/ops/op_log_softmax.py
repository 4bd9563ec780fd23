"""LogSoftmax: log(softmax(x)) = x - max - log(sum(exp(x - max))), so no exponential overflows.

Versions (``_softmax_like``): 1 and 11 normalise rows of the 2-D view at
``axis``, 13 normalises along ``axis`` only.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import require_float, working
from ._softmax_like import softmax_like_kernels


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    require_float(x, "LogSoftmax")
    if x.size == 0:
        return x.copy()
    w = working(x)
    with np.errstate(all="ignore"):
        shifted = w - np.max(w, axis=axis, keepdims=True)
        y = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return y.astype(x.dtype, copy=False)


KERNELS = softmax_like_kernels("LogSoftmax", _log_softmax)
