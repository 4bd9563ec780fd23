"""ReduceL1: the sum of absolute values over the given axes (all of them by default).

An empty reduction is 0. Half-width floats are summed in float32; integers sum
in their own type. Versions 1, 11 and 13 take ``axes`` as an attribute
(version 1 without negative axes), 18 as an input with ``noop_with_empty_axes``.
"""

from __future__ import annotations

import numpy as np

from ._precision import working
from ._reduce import reduction_kernels


def _l1(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    w = working(x)
    return np.sum(np.abs(w), axis=axes, keepdims=keepdims, dtype=w.dtype).astype(x.dtype)


KERNELS = reduction_kernels("ReduceL1", _l1, (1, 11, 13), (18,))
