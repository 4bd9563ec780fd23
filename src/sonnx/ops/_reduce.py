"""What the Reduce* operators share: axis handling and one kernel factory for every version.

Every reduction has the same version history shape: versions 1 and 11 (and
13 for most) take ``axes`` as an attribute, and a later version (13 or 18)
takes it as an optional input together with ``noop_with_empty_axes``.
Version 1 did not define negative axes, so it refuses them. Only the
reducer itself (a NumPy function of the array, the selected axes and
``keepdims``) differs between operators.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

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
    """Apply ``reducer``: no/empty axes reduce everything, unless ``noop_with_empty_axes``.

    With ``noop_with_empty_axes`` the reducer runs over no axis at all: plain
    reductions give ``x`` back, composite ones still apply their element-wise
    part (ReduceSumSquare squares, ReduceLogSum takes the log).
    """
    if axes is None or len(axes) == 0:
        if noop_with_empty_axes:
            return np.asarray(reducer(x, (), bool(keepdims)))
        selected: tuple[int, ...] | None = None
    else:
        selected = normalise_axes(x, axes)
    return np.asarray(reducer(x, selected, bool(keepdims)))


def reduction_kernels(
    operator: str, reducer: Reducer, attribute_versions: tuple[int, ...], input_versions: tuple[int, ...]
) -> tuple[Kernel, ...]:
    """The kernels of one Reduce* operator: ``axes`` as attribute in ``attribute_versions``, as input after.

    Version 1, when listed, refuses negative axes; the others count them from the back.
    """

    def by_attribute(x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_: Any) -> np.ndarray:
        return reduce_with(reducer, x, axes, keepdims, 0)

    def version_1(x: np.ndarray, axes: Sequence[int] | None = None, keepdims: int = 1, **_: Any) -> np.ndarray:
        return by_attribute(x, non_negative(axes, operator), keepdims)

    def by_input(
        x: np.ndarray, axes: np.ndarray | None = None, keepdims: int = 1, noop_with_empty_axes: int = 0, **_: Any
    ) -> np.ndarray:
        return reduce_with(reducer, x, axes_from_input(axes), keepdims, noop_with_empty_axes)

    kernels = []
    if 1 in attribute_versions:
        kernels.append(Kernel(operator, (1,), version_1))
    later = tuple(v for v in attribute_versions if v != 1)
    if later:
        kernels.append(Kernel(operator, later, by_attribute))
    kernels.append(Kernel(operator, input_versions, by_input))
    return tuple(kernels)
