"""ReduceSum: the sum over the given axes (all of them by default).

Also home of the axis handling the ReduceMean and ReduceMax kernels share.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .base import Kernel

Reducer = Callable[[np.ndarray, tuple[int, ...] | None, bool], np.ndarray]


def non_negative(axes: Sequence[int] | None, operator: str) -> Sequence[int] | None:
    """Version 1 of the reductions: negative axes are not defined (introduced in version 11), refused."""
    if axes is not None and any(int(a) < 0 for a in axes):
        raise ValueError(f"{operator}-1: negative axis in {list(axes)}")
    return axes


def normalise_axes(x: np.ndarray, axes: Sequence[int]) -> tuple[int, ...]:
    """``axes`` made non-negative and checked: inside the rank, no repeats."""
    out = []
    for a in axes:
        a = int(a)
        if not -x.ndim <= a < max(x.ndim, 1):
            raise ValueError(f"axis {a} outside rank {x.ndim}")
        out.append(a + x.ndim if a < 0 else a)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {list(axes)}")
    return tuple(out)


def axes_from_input(axes: np.ndarray | None) -> list[int] | None:
    """The optional 1-D int64 ``axes`` input as a list (None when omitted)."""
    if axes is None:
        return None
    if axes.ndim > 1 or not np.issubdtype(axes.dtype, np.integer):
        raise ValueError(f"axes must be a 1-D integer tensor, got {axes.dtype} {axes.shape}")
    return [int(a) for a in axes.reshape(-1).tolist()]


def reduce_with(
    reducer: Reducer, x: np.ndarray, axes: Sequence[int] | None, keepdims: int, noop_with_empty_axes: int
) -> np.ndarray:
    """Apply ``reducer``: no/empty axes reduce everything, unless ``noop_with_empty_axes`` (then identity)."""
    if axes is None or len(axes) == 0:
        if noop_with_empty_axes:
            return x.copy()
        selected: tuple[int, ...] | None = None
    else:
        selected = normalise_axes(x, axes)
    return np.asarray(reducer(x, selected, bool(keepdims)))


def _sum(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def reduce_sum_1(x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: as 11, with non-negative axes only."""
    return reduce_sum_attribute(x, non_negative(axes, "ReduceSum"), keepdims)


def reduce_sum_attribute(
    x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_attrs: Any
) -> np.ndarray:
    """Opsets 1 and 11: ``axes`` is an attribute (negative values counting from the back)."""
    return reduce_with(_sum, x, axes, keepdims, 0)


def reduce_sum(
    x: np.ndarray, axes: np.ndarray | None = None, keepdims: int = 1, noop_with_empty_axes: int = 0, **_attrs: Any
) -> np.ndarray:
    """Opset 13 on: ``axes`` is an optional input; ``noop_with_empty_axes`` makes empty axes the identity."""
    return reduce_with(_sum, x, axes_from_input(axes), keepdims, noop_with_empty_axes)


KERNELS = (
    Kernel("ReduceSum", (1,), reduce_sum_1),
    Kernel("ReduceSum", (11,), reduce_sum_attribute),
    Kernel("ReduceSum", (13,), reduce_sum),
)
