"""MaxPool: the largest element of every pooling window, and (from version 8) where it is.

Versions: 1 (one output), 8 (``Indices`` output and ``storage_order``), 10
(``ceil_mode``, ``dilations``), 11, 12 (8-bit integer types), 22. Attributes a
version lacks take the values reproducing its behaviour (floor mode, no
dilation). As for AveragePool, the version-22 rule that in ceil mode a window
starting in the end padding is dropped is applied to every version.

``Indices`` holds, for each output element, the position of the chosen input
element in the flattened input tensor: ``(n * C + c) * prod(D) + s`` where
``s`` is the row-major flattening of the spatial position, or the column-major
one (first spatial axis fastest) when ``storage_order`` is 1. Within a window
the first maximum in row-major window order is chosen. Padding never wins; a
window holding padding only has no defined maximum and is refused. A NaN in a
window makes its maximum NaN (the index is then the first NaN's).

When only ``Y`` is asked for, the input has more than :data:`SMALL` elements
and holds no NaN and no ``-0``, the maxima are taken one spatial axis at a
time (``_separable_max``): the same bits as the row-major fold, which runs
otherwise (over strided views of the padded input for small inputs, over the
runs of ``_window_taps`` for large ones).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._separable_max import separable_maxima
from ._window_taps import window_maxima
from ._windows import (
    WindowGeometry,
    padded_for_windows,
    pooled_axes,
    window_counts,
    window_geometry,
    window_indexes,
)
from .base import Kernel

SMALL = 1 << 14
"""Inputs of at most this many elements take the row-major fold over strided views even without ``Indices``:
for them the separable form's scans and layouts cost more than they save."""


def _lowest(dtype: np.dtype) -> object:
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    if dtype.kind == "b":
        return False
    return -np.inf


@functools.lru_cache(maxsize=1024)
def _has_padding_only_window(geo: WindowGeometry, spatial: tuple[int, ...]) -> bool:
    """Whether some window covers padding only (remembered: an operation meets the same geometry on every run)."""
    return bool(np.any(window_counts(geo, spatial, False) == 0))


def _pool(
    x: np.ndarray, kernel_shape: Sequence[int], ceil_mode: int, want_indices: bool, /, **attrs: Any
) -> tuple[np.ndarray, np.ndarray | None, WindowGeometry]:
    """The maxima, and the winning offsets when ``want_indices`` (window attributes: ``window_geometry``)."""
    pooled_axes(x, kernel_shape)
    geo = window_geometry(x.shape[2:], kernel_shape, ceil_mode, **attrs)
    if _has_padding_only_window(geo, x.shape[2:]):
        raise ValueError("a pooling window covers padding only (its maximum is undefined)")
    if not want_indices and x.size > SMALL:
        y = separable_maxima(x, geo, _lowest(x.dtype))
        return (window_maxima(x, geo, _lowest(x.dtype)) if y is None else y), None, geo
    xp = padded_for_windows(x, geo, _lowest(x.dtype))
    taps = [xp[index] for index in window_indexes(geo)]
    best = taps[0].copy()
    for tap in taps[1:]:
        np.maximum(best, tap, out=best)
    if not want_indices:
        return best, None, geo
    # The winner is the first offset (row-major) holding the maximum: walk the offsets backwards so the
    # earliest match is written last. A NaN in a window propagates to the maximum; its first NaN wins.
    which = np.zeros(best.shape, dtype=np.int64)
    nan_best = np.isnan(best) if best.dtype.kind == "f" and np.isnan(best).any() else None
    hit = np.empty(best.shape, dtype=bool)
    for i in range(len(taps) - 1, -1, -1):
        np.equal(taps[i], best, out=hit)
        if nan_best is not None:
            hit |= nan_best & np.isnan(taps[i])
        np.copyto(which, i, where=hit)
    return best, which, geo


def _flat_indices(which: np.ndarray, geo: WindowGeometry, shape: tuple[int, ...], storage_order: int) -> np.ndarray:
    """Turn the winning kernel offset of each output element into its index in the flattened input."""
    n, c = shape[:2]
    spatial = shape[2:]
    nsp = len(spatial)
    offsets = np.unravel_index(which, geo.kernel)
    size = int(np.prod(spatial))
    flat = (np.arange(n, dtype=np.int64)[:, None] * c + np.arange(c, dtype=np.int64)[None, :]) * size
    index = flat.reshape(n, c, *(1,) * nsp)
    if storage_order:
        weights = [int(np.prod(spatial[:i])) for i in range(nsp)]
    else:
        weights = [int(np.prod(spatial[i + 1 :])) for i in range(nsp)]
    for i in range(nsp):
        shape_i = [1] * (2 + nsp)
        shape_i[2 + i] = geo.out[i]
        start = (np.arange(geo.out[i], dtype=np.int64) * geo.strides[i] - geo.pad_begin[i]).reshape(shape_i)
        pos = start + offsets[i].astype(np.int64) * geo.dilations[i]
        index = index + pos * weights[i]
    return np.asarray(index, dtype=np.int64)


def max_pool_v1(x: np.ndarray, *, kernel_shape: Sequence[int], **attrs: Any) -> np.ndarray:
    """MaxPool-1: the pooled values only, in floor mode and without dilation (attributes of version 10)."""
    y, _, _ = _pool(x, kernel_shape, 0, False, **{**attrs, "dilations": None})
    return y


def max_pool(
    x: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    ceil_mode: int = 0,
    storage_order: int = 0,
    output_count: int = 2,
    **attrs: Any,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """MaxPool-8 on: the pooled values and the flattened indices of the chosen elements.

    ``output_count`` (how many outputs the operation names, passed by
    ``call_kernel``) spares computing ``Indices`` when only ``Y`` is asked for.
    """
    if storage_order not in (0, 1):
        raise ValueError(f"storage_order must be 0 or 1, not {storage_order}")
    want_indices = output_count >= 2
    y, which, geo = _pool(x, kernel_shape, ceil_mode, want_indices, **attrs)
    if which is None:
        return y
    return y, _flat_indices(which, geo, x.shape, storage_order)


KERNELS = (
    Kernel("MaxPool", (1,), max_pool_v1),
    Kernel("MaxPool", (8, 10, 11, 12, 22), max_pool, output_count_as="output_count"),
)
