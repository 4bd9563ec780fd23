"""GatherND: gather slices of ``data`` addressed by the index tuples in the last axis of ``indices``.

With ``b = batch_dims`` and ``k = indices.shape[-1]`` (1 <= k <= r - b), the
output is ``out[B, I] = data[B, indices[B, I]]``: ``B`` ranges over the ``b``
batch dimensions both tensors share, ``I`` over ``indices.shape[b:-1]``, and
each index tuple selects a slice of shape ``data.shape[b+k:]``. Output shape:
``indices.shape[:-1] + data.shape[b+k:]``.

Versions: 11 has no ``batch_dims`` (always 0); 12 introduces it; 13 adds
bfloat16. Negative index components count from the back of their axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import integer_indices, wrap_indices
from .base import Kernel


def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int = 0, **_attrs: Any) -> np.ndarray:
    """GatherND-11 (no batch_dims), -12, -13."""
    op = "GatherND"
    b = int(batch_dims)
    r, q = data.ndim, indices.ndim
    if r < 1 or q < 1:
        raise ValueError(f"{op}: data and indices must have rank >= 1 (got {r} and {q})")
    if not 0 <= b < min(q, r):
        raise ValueError(f"{op}: batch_dims {b} must lie in [0, min(rank(indices), rank(data)) - 1]")
    if indices.shape[:b] != data.shape[:b]:
        raise ValueError(f"{op}: batch dimensions differ: indices {indices.shape[:b]}, data {data.shape[:b]}")
    k = indices.shape[-1]
    if not 1 <= k <= r - b:
        raise ValueError(f"{op}: indices.shape[-1] = {k} must lie in [1, {r - b}]")
    idx = integer_indices(indices, op)
    idx = wrap_indices(idx, np.asarray(data.shape[b : b + k]), op)
    nb = int(np.prod(data.shape[:b], dtype=np.int64))
    flat_data = data.reshape((nb, *data.shape[b:]))
    m = int(np.prod(indices.shape[b:-1], dtype=np.int64))
    flat_idx = idx.reshape(nb, m, k)
    batch = np.arange(nb, dtype=np.int64)[:, None]
    picked = flat_data[(batch, *(flat_idx[..., j] for j in range(k)))]
    return np.asarray(picked.reshape(indices.shape[:-1] + data.shape[b + k :]))


KERNELS = (Kernel("GatherND", (11, 12, 13), gather_nd),)
