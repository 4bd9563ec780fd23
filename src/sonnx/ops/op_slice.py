"""Slice: a strided window of the input along some axes.

For every listed axis with dimension n: a negative start or end has n added;
then, with a positive step, start and end are clamped to [0, n]; with a
negative step, start to [0, n-1] and end to [-1, n-1] (where -1 means "past
the first element"). Axes not listed are taken whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel, int_vector


def _window(start: int, end: int, step: int, n: int) -> slice:
    if step == 0:
        raise ValueError("Slice: a step cannot be 0")
    if start < 0:
        start += n
    if end < 0:
        end += n
    if step > 0:
        start = min(max(start, 0), n)
        end = min(max(end, 0), n)
        return slice(start, end, step)
    start = min(max(start, 0), n - 1)
    end = min(max(end, -1), n - 1)
    # Python reads a stop of -1 as "the last element"; None is "past the first"
    return slice(start, None if end < 0 else end, step)


def _slice(
    data: np.ndarray,
    starts: Sequence[int],
    ends: Sequence[int],
    axes: Sequence[int] | None,
    steps: Sequence[int] | None,
    negative_axes: bool = True,
) -> np.ndarray:
    if len(starts) != len(ends):
        raise ValueError(f"Slice: {len(starts)} starts but {len(ends)} ends")
    count = len(starts)
    ax = list(range(count)) if axes is None else [int(a) for a in axes]
    st = [1] * count if steps is None else [int(s) for s in steps]
    if len(ax) != count or len(st) != count:
        raise ValueError("Slice: starts, ends, axes and steps must have one length")
    windows: list[slice] = [slice(None)] * data.ndim
    seen = set()
    for a, s, e, step in zip(ax, starts, ends, st, strict=True):
        if a < 0 and not negative_axes:
            raise ValueError(f"Slice: negative axis {a} (allowed from opset 11)")
        if not -data.ndim <= a < data.ndim:
            raise ValueError(f"Slice: axis {a} outside rank {data.ndim}")
        a = a + data.ndim if a < 0 else a
        if a in seen:
            raise ValueError(f"Slice: axis {a} repeated")
        seen.add(a)
        windows[a] = _window(int(s), int(e), step, data.shape[a])
    return data[tuple(windows)]  # a view: the kernels never write into their inputs


def slice_attributes(
    data: np.ndarray,
    starts: Sequence[int] = (),
    ends: Sequence[int] = (),
    axes: Sequence[int] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Opset 1: ``starts``, ``ends`` and optional ``axes`` (non-negative) are attributes; steps are 1."""
    return _slice(data, list(starts), list(ends), axes, None, negative_axes=False)


def _slice_inputs(
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    axes: np.ndarray | None = None,
    steps: np.ndarray | None = None,
    *,
    negative_axes: bool,
) -> np.ndarray:
    """Opset 10 on: ``starts``, ``ends``, optional ``axes`` and ``steps`` are inputs; steps may be negative."""
    s = int_vector("Slice", "starts", starts)
    e = int_vector("Slice", "ends", ends)
    if s is None or e is None:
        raise ValueError("Slice needs its starts and ends inputs")
    return _slice(data, s, e, int_vector("Slice", "axes", axes), int_vector("Slice", "steps", steps), negative_axes)


def slice_inputs_10(*inputs: Any, **_attrs: Any) -> np.ndarray:
    """Opset 10: negative axes are not defined (Slice-11 introduced them) and are refused."""
    return _slice_inputs(*inputs, negative_axes=False)


def slice_inputs(*inputs: Any, **_attrs: Any) -> np.ndarray:
    """Opset 11 on: negative axes count from the back."""
    return _slice_inputs(*inputs, negative_axes=True)


KERNELS = (
    Kernel("Slice", (1,), slice_attributes),
    Kernel("Slice", (10,), slice_inputs_10),
    Kernel("Slice", (11, 13), slice_inputs),
)
