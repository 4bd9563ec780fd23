"""ReduceMin: the minimum over the given axes (all of them by default).

A minimum over an empty set is +inf for floating types and the type's largest
value otherwise (True for booleans, which version 20 admits, False < True).
NaN propagates. Versions 1, 11, 12 and 13 take ``axes`` as an attribute
(version 1 without negative axes), 18 and 20 as an input with
``noop_with_empty_axes``.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ._convert import is_integer
from ._reduce import reduction_kernels


def _greatest(dtype: np.dtype[Any]) -> Any:
    """The identity of min: True, the integer type's greatest value, or +inf (floats, ml_dtypes ones too)."""
    if dtype.kind == "b":
        return True
    if is_integer(dtype):
        return (np.iinfo if dtype.kind in "iu" else ml_dtypes.iinfo)(dtype).max
    return np.inf


def _min(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.min(x, axis=axes, keepdims=keepdims, initial=_greatest(x.dtype))


KERNELS = reduction_kernels("ReduceMin", _min, (1, 11, 12, 13), (18, 20))
