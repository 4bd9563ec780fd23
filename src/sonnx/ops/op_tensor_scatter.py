"""TensorScatter: write a block of ``update`` into a cache tensor along the sequence axis (KV-cache update).

For batch entry ``b``, sequence position ``s`` of ``update`` (``S`` of them)
goes to position ``p = write_indices[b] + s`` of ``past_cache`` along ``axis``
(``S_max`` positions); every other axis keeps its position. ``linear`` mode
requires ``0 <= write_indices[b]`` and ``write_indices[b] + S <= S_max``;
``circular`` mode takes ``p`` modulo ``S_max``. ``write_indices`` defaults to
zeros. ``axis`` may not be the batch axis 0. One version (24).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import integer_indices, normalise_axis, text
from .base import Kernel


def tensor_scatter(
    past_cache: np.ndarray,
    update: np.ndarray,
    write_indices: np.ndarray | None = None,
    *,
    axis: int = -2,
    mode: str = "linear",
    **_attrs: Any,
) -> np.ndarray:
    """TensorScatter-24."""
    op = "TensorScatter"
    how = text(mode)
    if how not in ("linear", "circular"):
        raise ValueError(f"{op}: mode '{how}' is not linear or circular")
    if past_cache.ndim < 2:
        raise ValueError(f"{op}: past_cache must have rank >= 2 (batch and sequence axes), got {past_cache.ndim}")
    ax = normalise_axis(axis, past_cache.ndim, op)
    if ax == 0:
        raise ValueError(f"{op}: axis may not be the batch axis 0")
    if update.ndim != past_cache.ndim or any(
        u != c for d, (u, c) in enumerate(zip(update.shape, past_cache.shape, strict=True)) if d != ax
    ):
        raise ValueError(f"{op}: update shape {update.shape} differs from past_cache {past_cache.shape} off axis {ax}")
    batch, s_max, s = past_cache.shape[0], past_cache.shape[ax], update.shape[ax]
    if s > s_max:
        raise ValueError(f"{op}: update has {s} sequence positions, the cache only {s_max}")
    if write_indices is None:
        start = np.zeros(batch, dtype=np.int64)
    else:
        start = integer_indices(write_indices, op, "write_indices").reshape(-1)
        if start.shape != (batch,):
            raise ValueError(f"{op}: write_indices has shape {write_indices.shape}, expected ({batch},)")
    pos = start[:, None] + np.arange(s, dtype=np.int64)[None, :]
    if how == "circular":
        pos = np.mod(pos, s_max) if s_max else pos
    elif start.size and (start.min() < 0 or (start + s).max() > s_max):
        raise ValueError(f"{op}: linear mode needs 0 <= write_indices and write_indices + {s} <= {s_max}")
    out = past_cache.copy()
    if pos.size:
        rows = np.arange(batch, dtype=np.int64)[:, None]
        np.moveaxis(out, ax, 1)[rows, pos] = np.moveaxis(update, ax, 1)
    return out


KERNELS = (Kernel("TensorScatter", (24,), tensor_scatter),)
