"""ReduceMax: the maximum over the given axes (all of them by default).

A maximum over an empty set is -inf for floating types and the type's least
value otherwise (as the operator text states). NaN propagates.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .base import Kernel
from .reduce_sum import axes_from_input, non_negative, reduce_with


def _least(dtype: np.dtype) -> Any:
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _max(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.max(x, axis=axes, keepdims=keepdims, initial=_least(x.dtype))


def reduce_max_1(x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as 11, with non-negative axes only."""
    return reduce_max_attribute(x, non_negative(axes, "ReduceMax"), keepdims)


def reduce_max_attribute(
    x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any
) -> np.ndarray:
    """Opsets 1, 11, 12 and 13: ``axes`` is an attribute (negative values counting from the back)."""
    return reduce_with(_max, x, axes, keepdims, 0)


def reduce_max(
    x: np.ndarray, axes: np.ndarray | None = None, keepdims: int = 1, noop_with_empty_axes: int = 0, **_attrs: Any
) -> np.ndarray:
    """Opsets 18 and 20: ``axes`` is an optional input; ``noop_with_empty_axes`` makes empty axes the identity."""
    return reduce_with(_max, x, axes_from_input(axes), keepdims, noop_with_empty_axes)


KERNELS = (
    Kernel("ReduceMax", (1,), reduce_max_1),
    Kernel("ReduceMax", (11, 12, 13), reduce_max_attribute),
    Kernel("ReduceMax", (18, 20), reduce_max),
)
