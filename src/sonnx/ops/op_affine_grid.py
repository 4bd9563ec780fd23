"""AffineGrid: the sampling grid (for GridSample) of a batch of 2-D or 3-D affine transforms.

For ``size = (N, C, H, W)`` and ``theta`` of shape ``N x 2 x 3``,
``grid[n, h, w] = theta[n] @ (x_w, y_h, 1)``; for ``(N, C, D, H, W)`` and
``N x 3 x 4``, ``grid[n, d, h, w] = theta[n] @ (x_w, y_h, z_d, 1)``. The base
coordinates along an axis of length ``m`` span ``[-1, 1]``: ``-1 + 2i / (m - 1)``
(pixel centres of the corner pixels at +-1) with ``align_corners``, otherwise
``(2i + 1) / m - 1`` (outer edges at +-1); an axis of length 1 has coordinate 0.
One version (20).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _base_coordinates(m: int, align_corners: bool) -> np.ndarray:
    i = np.arange(m, dtype=np.float64)
    if m <= 1:
        return np.zeros(m, dtype=np.float64)
    return -1.0 + 2.0 * i / (m - 1) if align_corners else (2.0 * i + 1.0) / m - 1.0


def affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: int = 0, **_attrs: Any) -> np.ndarray:
    """AffineGrid-20."""
    dims = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(dims) not in (4, 5):
        raise ValueError(f"size must have 4 (N, C, H, W) or 5 (N, C, D, H, W) values, not {len(dims)}")
    r = len(dims) - 2
    if theta.shape[1:] != (r, r + 1) or theta.ndim != 3:
        raise ValueError(f"theta must be N x {r} x {r + 1} for a {r}-D size, not {list(theta.shape)}")
    if theta.shape[0] != dims[0]:
        raise ValueError(f"theta holds {theta.shape[0]} transforms, size asks for N = {dims[0]}")
    if any(d < 0 for d in dims):
        raise ValueError(f"size must not be negative, got {dims}")
    spatial = dims[2:]
    # Homogeneous base points, coordinates listed innermost axis first: (x, y[, z], 1).
    axes = [_base_coordinates(m, bool(align_corners)) for m in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    points = np.stack([*reversed(mesh), np.ones(spatial, dtype=np.float64)], axis=-1)
    grid = np.einsum("...k,njk->n...j", points, theta.astype(np.float64))
    return grid.astype(theta.dtype, copy=False)


KERNELS = (Kernel("AffineGrid", (20,), affine_grid),)
