"""ReduceSumSquare: sum(x^2) over the given axes (all of them by default).

An empty sum is 0. Half-width floats are computed in float32 (rounded back
once); integers in their own type (wrapping). Versions 1, 11 and 13 take
``axes`` as an attribute (version 1 without negative axes), 18 as an input
with ``noop_with_empty_axes``.
"""

from __future__ import annotations

import numpy as np

from ._precision import working
from ._reduce import reduction_kernels


def _sum_square(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    w = working(x)
    with np.errstate(over="ignore"):
        return np.sum(w * w, axis=axes, keepdims=keepdims, dtype=w.dtype).astype(x.dtype)


KERNELS = reduction_kernels("ReduceSumSquare", _sum_square, (1, 11, 13), (18,))
