"""ReduceMean: the arithmetic mean over the given axes (all of them by default)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .base import Kernel
from .reduce_sum import axes_from_input, non_negative, reduce_with


def _mean(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    # the mean of an empty set is NaN (0/0); integer means truncate back to the input type
    with np.errstate(invalid="ignore", divide="ignore"):
        wide = np.float64 if x.dtype.kind in "iub" else np.promote_types(x.dtype, np.float32)
        total = np.sum(x, axis=axes, keepdims=keepdims, dtype=wide)
        count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        return np.asarray(total / count).astype(x.dtype, copy=False)


def reduce_mean_1(x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as 11, with non-negative axes only."""
    return reduce_mean_attribute(x, non_negative(axes, "ReduceMean"), keepdims)


def reduce_mean_attribute(
    x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any
) -> np.ndarray:
    """Opsets 1, 11 and 13: ``axes`` is an attribute (negative values counting from the back)."""
    return reduce_with(_mean, x, axes, keepdims, 0)


def reduce_mean(
    x: np.ndarray, axes: np.ndarray | None = None, keepdims: int = 1, noop_with_empty_axes: int = 0, **_attrs: Any
) -> np.ndarray:
    """Opset 18 on: ``axes`` is an optional input; ``noop_with_empty_axes`` makes empty axes the identity."""
    return reduce_with(_mean, x, axes_from_input(axes), keepdims, noop_with_empty_axes)


KERNELS = (
    Kernel("ReduceMean", (1,), reduce_mean_1),
    Kernel("ReduceMean", (11, 13), reduce_mean_attribute),
    Kernel("ReduceMean", (18,), reduce_mean),
)
