"""Tile: the input repeated ``repeats[i]`` times along each dimension i (NumPy's ``tile``, rank kept).

Version 1 repeats along one dimension only: inputs ``tiles`` (the count) and
``axis``, both one-element tensors. Versions 6 and 13 take ``repeats``, a 1-D
int64 tensor with one non-negative count per dimension; 13 differs from 6
only in the element types it admits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _whole(t: np.ndarray, name: str) -> int:
    if t.size != 1:
        raise ValueError(f"Tile-1: {name} must have one element, got shape {t.shape}")
    v = t.reshape(())
    if v != np.trunc(v):
        raise ValueError(f"Tile-1: {name} must be a whole number, got {v}")
    return int(v)


def tile_1(x: np.ndarray, tiles: np.ndarray, axis: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Version 1: ``tiles`` copies along ``axis`` (a negative axis counts from the back)."""
    count, ax = _whole(tiles, "tiles"), _whole(axis, "axis")
    if not -x.ndim <= ax < x.ndim:
        raise ValueError(f"Tile-1: axis {ax} outside rank {x.ndim}")
    if count < 0:
        raise ValueError(f"Tile-1: negative tiles {count}")
    reps = [1] * x.ndim
    reps[ax] = count
    return np.tile(x, reps)


def tile(x: np.ndarray, repeats: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions 6 and 13."""
    if repeats.ndim != 1 or not np.issubdtype(repeats.dtype, np.integer):
        raise ValueError(f"Tile: repeats must be a 1-D integer tensor, got {repeats.dtype} {repeats.shape}")
    if repeats.shape[0] != x.ndim:
        raise ValueError(f"Tile: {repeats.shape[0]} repeats for an input of rank {x.ndim}")
    reps = [int(r) for r in repeats]
    if any(r < 0 for r in reps):
        raise ValueError(f"Tile: negative repeat in {reps}")
    return np.tile(x, reps) if reps else x.copy()


KERNELS = (
    Kernel("Tile", (1,), tile_1),
    Kernel("Tile", (6, 13), tile),
)
