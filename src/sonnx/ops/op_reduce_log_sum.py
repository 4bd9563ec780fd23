"""ReduceLogSum: log(sum(x)) over the given axes (all of them by default).

An empty reduction is log(0) = -inf. Half-width floats are computed in
float32; integer inputs (versions before 28) in float64, truncated back.
Versions 1, 11 and 13 take ``axes`` as an attribute (version 1 without
negative axes), 18 and 28 as an input with ``noop_with_empty_axes``; 28 drops
the integer types.
"""

from __future__ import annotations

import numpy as np

from ._precision import as_float
from ._reduce import reduction_kernels


def _log_sum(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.sum(as_float(x), axis=axes, keepdims=keepdims)).astype(x.dtype)


KERNELS = reduction_kernels("ReduceLogSum", _log_sum, (1, 11, 13), (18, 28))
