"""ReduceL2: the Euclidean norm, sqrt(sum(x^2)), over the given axes (all of them by default).

An empty reduction is 0. Half-width floats are computed in float32; integer
inputs in float64, the root truncated back to the integer type. Versions 1, 11
and 13 take ``axes`` as an attribute (version 1 without negative axes), 18 as
an input with ``noop_with_empty_axes``.
"""

from __future__ import annotations

import numpy as np

from ._precision import as_float
from ._reduce import reduction_kernels


def _l2(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    w = as_float(x)
    return np.sqrt(np.sum(w * w, axis=axes, keepdims=keepdims)).astype(x.dtype)


KERNELS = reduction_kernels("ReduceL2", _l2, (1, 11, 13), (18,))
