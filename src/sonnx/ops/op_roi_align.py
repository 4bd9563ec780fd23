"""RoiAlign: pool every region of interest into an ``output_height x output_width`` grid of bilinear samples.

Region ``r = [x1, y1, x2, y2]`` of image ``batch_indices[r]`` is scaled by
``spatial_scale`` and, with ``coordinate_transformation_mode="half_pixel"``,
shifted by -0.5 (``output_half_pixel`` instead forces its width and height to
at least 1). Its extent is cut into ``output_height x output_width`` bins; bin
``(p, q)`` holds ``gh x gw`` sample points at ``y = y1 + p bh + (i + 0.5) bh / gh``
(likewise ``x``), where ``bh`` is the bin height and ``gh = sampling_ratio``,
or ``ceil(bh)`` when it is 0. A sample is the bilinear interpolation of X at
``(y, x)``: 0 when ``y < -1``, ``y > H``, ``x < -1`` or ``x > W``, coordinates
below 0 taken as 0 and beyond the last row/column as the last row/column.

``avg`` averages the samples of a bin (dividing by ``max(gh * gw, 1)``).
``max`` takes, over the samples of a bin, the largest of the four weighted
corner terms ``w_k * X[corner_k]`` of each sample. [Non-normative: this is how
onnxruntime defines max pooling here, and the operator's backend test data
follow it.]

Versions: 10 (no ``coordinate_transformation_mode``: the ``output_half_pixel``
behaviour), 16 (the attribute, default ``half_pixel``), 22 (bfloat16).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._resample import text
from .base import Kernel


def _axis_samples(
    start: np.ndarray, extent: np.ndarray, bins: int, grid: np.ndarray, samples: int, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Row (or column) indices and weights of the two bilinear taps of every sample: ``(R, bins, samples, 2)``."""
    bin_size = extent / bins
    p = np.arange(bins, dtype=np.float64)[None, :, None]
    i = np.arange(samples, dtype=np.float64)[None, None, :]
    g = np.maximum(grid, 1).astype(np.float64)[:, None, None]
    c = start[:, None, None] + p * bin_size[:, None, None] + (i + 0.5) * bin_size[:, None, None] / g
    exists = (i < grid[:, None, None]) & (c >= -1.0) & (c <= size)
    c = np.maximum(c, 0.0)
    low = np.floor(c)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    frac = np.where(at_end, 0.0, c - low)
    idx = np.stack([low, high], axis=-1).astype(np.int64)
    w = np.stack([1.0 - frac, frac], axis=-1) * exists[..., None]
    return idx, w


def _roi_align(
    x: np.ndarray,
    rois: np.ndarray,
    batch_indices: np.ndarray,
    half_pixel: bool,
    mode: str,
    output_height: int,
    output_width: int,
    sampling_ratio: int,
    spatial_scale: float,
) -> np.ndarray:
    if x.ndim != 4:
        raise ValueError(f"X must be N x C x H x W, not rank {x.ndim}")
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise ValueError(f"rois must be num_rois x 4, not {list(rois.shape)}")
    if batch_indices.shape != (rois.shape[0],):
        raise ValueError(f"batch_indices has shape {list(batch_indices.shape)}, want [{rois.shape[0]}]")
    n, c, h, w = x.shape
    bidx = batch_indices.astype(np.int64)
    if bidx.size and (bidx.min() < 0 or bidx.max() >= n):
        raise ValueError(f"batch_indices must lie in [0, {n}), got {bidx.tolist()}")
    if mode not in ("avg", "max"):
        raise ValueError(f"mode must be 'avg' or 'max', not {mode!r}")
    ph, pw = int(output_height), int(output_width)
    if ph < 1 or pw < 1:
        raise ValueError(f"output_height and output_width must be positive, got {ph} and {pw}")
    r = rois.astype(np.float64) * float(spatial_scale) - (0.5 if half_pixel else 0.0)
    x0, y0, x1, y1 = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
    roi_w, roi_h = x1 - x0, y1 - y0
    if not half_pixel:
        roi_w, roi_h = np.maximum(roi_w, 1.0), np.maximum(roi_h, 1.0)
    if sampling_ratio > 0:
        gh = np.full(r.shape[0], int(sampling_ratio), dtype=np.int64)
        gw = gh
    else:
        gh = np.maximum(np.ceil(roi_h / ph), 0).astype(np.int64)
        gw = np.maximum(np.ceil(roi_w / pw), 0).astype(np.int64)
    out = np.zeros((r.shape[0], c, ph, pw), dtype=np.float64)
    if r.shape[0] == 0 or x.size == 0:
        return out.astype(x.dtype)
    sh, sw = max(int(gh.max()), 1), max(int(gw.max()), 1)
    iy, wy = _axis_samples(y0, roi_h, ph, gh, sh, h)
    ix, wx = _axis_samples(x0, roi_w, pw, gw, sw, w)
    xf = x.astype(np.float64)
    count = np.maximum(gh * gw, 1).astype(np.float64)
    pool: Callable[..., np.ndarray] = _avg if mode == "avg" else _max
    # One pass per image that regions refer to (at most N): the regions of one image share its data.
    for b in np.unique(bidx):
        sel = np.flatnonzero(bidx == b)
        out[sel] = pool(xf[b], iy[sel], wy[sel], ix[sel], wx[sel], gh[sel], gw[sel], count[sel])
    return out.astype(x.dtype)


def _avg(img: np.ndarray, iy: np.ndarray, wy: np.ndarray, ix: np.ndarray, wx: np.ndarray,
         gh: np.ndarray, gw: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Averages: every region's samples summed into a (bins x rows) and a (bins x columns) weight matrix.

    ``Y[r, c] = Rows[r] @ X[c] @ Cols[r]^T / count[r]``, computed as two matrix products.
    """
    k, ph = iy.shape[:2]
    pw = ix.shape[1]
    c, h, w = img.shape
    rows = np.zeros((k, ph, h))
    cols = np.zeros((k, pw, w))
    rk = np.arange(k)[:, None, None, None]
    np.add.at(rows, (rk, np.arange(ph)[None, :, None, None], iy), wy)
    np.add.at(cols, (rk, np.arange(pw)[None, :, None, None], ix), wx)
    by_row = rows.reshape(k * ph, h) @ img.transpose(1, 0, 2).reshape(h, c * w)  # (R * P, C * W)
    y = by_row.reshape(k, ph * c, w) @ cols.transpose(0, 2, 1)  # (R, P * C, Q)
    y = y.reshape(k, ph, c, pw).transpose(0, 2, 1, 3)
    return y / count[:, None, None, None]


def _max(img: np.ndarray, iy: np.ndarray, wy: np.ndarray, ix: np.ndarray, wx: np.ndarray,
         gh: np.ndarray, gw: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Maxima: every weighted corner term of every sample, then the largest per bin."""
    pixels = np.ascontiguousarray(img.transpose(1, 2, 0))  # H x W x C: one gather copies C contiguous values
    # (R, P, Sy, 2, Q, Sx, 2, C): corner values of every sample of every bin
    values = pixels[iy[:, :, :, :, None, None, None], ix[:, None, None, None, :, :, :]]
    weights = wy[:, :, :, :, None, None, None] * wx[:, None, None, None, :, :, :]
    per_sample = (values * weights[..., None]).max(axis=(3, 6))  # (R, P, Sy, Q, Sx, C)
    sy = np.arange(iy.shape[2])[None, :] < gh[:, None]
    sx = np.arange(ix.shape[2])[None, :] < gw[:, None]
    exists = sy[:, None, :, None, None, None] & sx[:, None, None, None, :, None]  # (R, 1, Sy, 1, Sx, 1)
    best = np.where(exists, per_sample, -np.inf).max(axis=(2, 4))  # (R, P, Q, C)
    best = np.where(np.isneginf(best), 0.0, best)
    return best.transpose(0, 3, 1, 2)


def roi_align_10(x: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *, mode: str = "avg",
                 output_height: int = 1, output_width: int = 1, sampling_ratio: int = 0,
                 spatial_scale: float = 1.0, **_attrs: Any) -> np.ndarray:
    """RoiAlign-10: regions without the half-pixel shift, at least 1 x 1."""
    return _roi_align(x, rois, batch_indices, False, text(mode), output_height, output_width,
                      int(sampling_ratio), spatial_scale)


def roi_align_16(x: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *, mode: str = "avg",
                 output_height: int = 1, output_width: int = 1, sampling_ratio: int = 0,
                 spatial_scale: float = 1.0, coordinate_transformation_mode: str = "half_pixel",
                 **_attrs: Any) -> np.ndarray:
    """RoiAlign-16 and -22: ``coordinate_transformation_mode`` chooses the half-pixel shift."""
    ctm = text(coordinate_transformation_mode)
    if ctm not in ("half_pixel", "output_half_pixel"):
        raise ValueError(f"coordinate_transformation_mode must be half_pixel or output_half_pixel, not {ctm!r}")
    return _roi_align(x, rois, batch_indices, ctm == "half_pixel", text(mode), output_height, output_width,
                      int(sampling_ratio), spatial_scale)


KERNELS = (
    Kernel("RoiAlign", (10,), roi_align_10),
    Kernel("RoiAlign", (16, 22), roi_align_16),
)
