"""ReduceSum: the sum over the given axes (all of them by default), in the input's type."""

from __future__ import annotations

import numpy as np

from ._reduce import reduction_kernels


def _sum(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


KERNELS = reduction_kernels("ReduceSum", _sum, (1, 11), (13,))
