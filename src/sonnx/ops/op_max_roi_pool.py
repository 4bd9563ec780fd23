"""MaxRoiPool: max pooling of each region of interest into a fixed ``pooled_shape`` grid.

For a RoI ``[b, x1, y1, x2, y2]`` (corners in input coordinates, scaled by
``spatial_scale`` and rounded to the nearest integer, halves away from zero),
the region spans rows ``y1 .. y2`` and columns ``x1 .. x2`` (at least one of
each) of image ``b``. It is divided into ``PH x PW`` bins of ``h / PH`` by
``w / PW`` pixels; bin ``(i, j)`` covers rows ``y1 + floor(i * h / PH)`` up
to ``y1 + ceil((i + 1) * h / PH)`` (exclusive), clipped to the image, and
columns likewise. ``Y[r, c, i, j]`` is the largest element of the bin, 0 for
a bin entirely outside the image. The output is ``num_rois x C x PH x PW``.

Interpretation: the text names the inputs and the output shape only; the
bin arithmetic is that of Fast R-CNN's RoI pooling, which the operator comes
from (and which onnxruntime implements). ``pooled_shape`` and
``spatial_scale`` must be positive. Versions 1 and 22 differ only in the
types they admit.

Computation: a masked maximum per bin column, then per bin row, each
vectorised over every RoI and channel (two loops over the pooled grid's sides).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._windows import accumulation_dtype
from .base import Kernel


def _bins(start: np.ndarray, end: np.ndarray, pooled: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin starts and ends (exclusive), clipped to ``[0, limit]``, shaped ``R x pooled``."""
    extent = np.maximum(end - start + 1, 1).astype(np.float64)
    size = extent / pooled
    k = np.arange(pooled, dtype=np.float64)
    lo = np.floor(k[None, :] * size[:, None]).astype(np.int64) + start[:, None]
    hi = np.ceil((k[None, :] + 1) * size[:, None]).astype(np.int64) + start[:, None]
    return np.clip(lo, 0, limit), np.clip(hi, 0, limit)


def max_roi_pool(
    x: np.ndarray,
    rois: np.ndarray,
    *,
    pooled_shape: Sequence[int] | None = None,
    spatial_scale: float = 1.0,
    **_attrs: object,
) -> np.ndarray:
    """MaxRoiPool-1, -22."""
    if x.ndim != 4:
        raise ValueError(f"X must have shape N x C x H x W, not rank {x.ndim}")
    if rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"rois must have shape num_rois x 5, not {rois.shape}")
    if pooled_shape is None or len(pooled_shape) != 2 or any(int(v) < 1 for v in pooled_shape):
        raise ValueError(f"pooled_shape must give two positive sizes, not {pooled_shape}")
    if not spatial_scale > 0:
        raise ValueError(f"spatial_scale must be positive, not {spatial_scale}")
    ph, pw = (int(v) for v in pooled_shape)
    n, c, height, width = x.shape
    r = rois.astype(np.float64)
    batch = r[:, 0].astype(np.int64)
    if batch.size and (batch.min() < 0 or batch.max() >= n):
        raise ValueError(f"a RoI names a batch index outside [0, {n})")
    scaled = r[:, 1:] * float(spatial_scale)
    corner = (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int64)
    x1, y1, x2, y2 = corner.T
    hlo, hhi = _bins(y1, y2, ph, height)
    wlo, whi = _bins(x1, x2, pw, width)
    acc = accumulation_dtype(x.dtype)
    data = x.astype(acc, copy=False)[batch]  # R x C x H x W
    lowest = acc.type(-np.inf)
    cols = np.arange(width)
    rows = np.arange(height)
    by_column = np.empty((len(batch), c, height, pw), dtype=acc)
    for j in range(pw):
        inside = (cols[None, :] >= wlo[:, j, None]) & (cols[None, :] < whi[:, j, None])  # R x W
        by_column[..., j] = np.where(inside[:, None, None, :], data, lowest).max(axis=-1, initial=lowest)
    y = np.empty((len(batch), c, ph, pw), dtype=acc)
    for i in range(ph):
        inside = (rows[None, :] >= hlo[:, i, None]) & (rows[None, :] < hhi[:, i, None])  # R x H
        y[:, :, i, :] = np.where(inside[:, None, :, None], by_column, lowest).max(axis=2, initial=lowest)
    empty = (hhi <= hlo)[:, :, None] | (whi <= wlo)[:, None, :]  # R x PH x PW
    y[np.broadcast_to(empty[:, None], y.shape)] = 0
    return y.astype(x.dtype, copy=False)


KERNELS = (Kernel("MaxRoiPool", (1, 22), max_roi_pool),)
