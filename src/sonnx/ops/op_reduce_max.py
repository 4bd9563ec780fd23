"""ReduceMax: the maximum over the given axes (all of them by default).

A maximum over an empty set is -inf for floating types and the type's least
value otherwise (as the operator text states). NaN propagates.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ._convert import is_integer
from ._reduce import reduction_kernels


def _least(dtype: np.dtype) -> Any:
    """The identity of max: False, the integer type's least value, or -inf (floats, ml_dtypes ones too)."""
    if dtype.kind == "b":
        return False
    if is_integer(dtype):
        return (np.iinfo if dtype.kind in "iu" else ml_dtypes.iinfo)(dtype).min
    return -np.inf


def _max(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.max(x, axis=axes, keepdims=keepdims, initial=_least(x.dtype))


KERNELS = reduction_kernels("ReduceMax", _max, (1, 11, 12, 13), (18, 20))
