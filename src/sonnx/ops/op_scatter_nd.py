"""ScatterND: a copy of ``data`` where slices addressed by index tuples receive ``updates``.

With ``k = indices.shape[-1]`` (k <= r), each k-tuple ``indices[I]`` names the
slice ``out[indices[I]]`` of shape ``data.shape[k:]``, which becomes
``f(out[indices[I]], updates[I])``; ``updates.shape`` must be
``indices.shape[:-1] + data.shape[k:]``. Negative components count from the back.

Versions: 11 and 13 (13 adds bfloat16) only replace; 16 adds ``reduction``
(``add``, ``mul``); 18 adds ``max`` and ``min``. With ``none`` and a slice named
twice ONNX leaves the result unspecified; sonnx's choice is that the last
write wins, in row-major order of the index tuples (models relying on it are
flagged elsewhere in sonnx).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._indexing import check_reduction, integer_indices, linear_rows, scatter_rows, wrap_indices
from .base import Kernel


def scatter_nd_into(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str) -> np.ndarray:
    """The ScatterND computation for one (checked) reduction."""
    op = "ScatterND"
    if data.ndim < 1 or indices.ndim < 1:
        raise ValueError(f"{op}: data and indices must have rank >= 1 (got {data.ndim} and {indices.ndim})")
    k = indices.shape[-1]
    if k > data.ndim:
        raise ValueError(f"{op}: indices.shape[-1] = {k} exceeds the rank of data ({data.ndim})")
    want = indices.shape[:-1] + data.shape[k:]
    if updates.shape != want:
        raise ValueError(f"{op}: updates have shape {updates.shape}, expected {want}")
    idx = wrap_indices(integer_indices(indices, op), np.asarray(data.shape[:k], dtype=np.int64), op)
    out = data.copy()
    nrows = int(np.prod(data.shape[:k], dtype=np.int64))
    view = out.reshape((nrows, *data.shape[k:]))
    rows = linear_rows(idx, data.shape[:k]).reshape(-1)
    upd = updates.reshape((rows.size, *data.shape[k:])).astype(data.dtype, copy=False)
    scatter_rows(view, rows, upd, reduction)
    return out


def _scatter_nd(allowed: Sequence[str]) -> Callable[..., np.ndarray]:
    def scatter_nd(
        data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str = "none", **_attrs: Any
    ) -> np.ndarray:
        return scatter_nd_into(data, indices, updates, check_reduction(reduction, allowed, "ScatterND"))

    scatter_nd.__doc__ = f"ScatterND with reductions {', '.join(allowed)}."
    return scatter_nd


KERNELS = (
    Kernel("ScatterND", (11, 13), _scatter_nd(("none",))),
    Kernel("ScatterND", (16,), _scatter_nd(("none", "add", "mul"))),
    Kernel("ScatterND", (18,), _scatter_nd(("none", "add", "mul", "max", "min"))),
)
