"""ReduceMax: the maximum over the given axes (all of them by default).

A maximum over an empty set is -inf for floating types and the type's least
value otherwise (as the operator text states). NaN propagates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._reduce import reduction_kernels


def _least(dtype: np.dtype) -> Any:
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _max(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.max(x, axis=axes, keepdims=keepdims, initial=_least(x.dtype))


KERNELS = reduction_kernels("ReduceMax", _max, (1, 11, 12, 13), (18, 20))
