"""TopK: the ``k`` largest (or smallest) entries along ``axis`` and their indices (int64).

Order: by value (descending for largest, ascending for smallest); equal values
keep the lower index first, as the ONNX text requires. NaN counts as larger
than every number (first among the largest, last among the smallest). With
``sorted = 0`` ONNX leaves the order unspecified; sonnx returns the same sorted
order. ``k`` must lie in [0, n] (the text says positive; 0 gives empty outputs,
as onnx's shape inference allows).

Versions: 1 takes ``k`` as an attribute; 10 takes it as a 1-element input ``K``;
11 adds ``largest`` and ``sorted`` and integer element types; 24 adds bfloat16.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import normalise_axis
from .base import Kernel


def _k_from_input(k: np.ndarray) -> int:
    if k.size != 1 or not np.issubdtype(k.dtype, np.integer) or k.ndim > 1:
        raise ValueError(f"TopK: K must be a 1-D integer tensor with one element, got {k.dtype}{list(k.shape)}")
    return int(k.reshape(-1)[0])


def top_k_along(x: np.ndarray, k: int, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """Values and int64 indices of the top ``k`` along ``axis``, ties broken by the lower index."""
    if x.ndim < 1:
        raise ValueError("TopK: X must have rank >= 1")
    ax = normalise_axis(axis, x.ndim, "TopK")
    n = x.shape[ax]
    if not 0 <= k <= n:
        raise ValueError(f"TopK: k = {k} outside [0, {n}] (the size of axis {ax})")
    if largest:
        # a stable ascending sort of the reversed axis, read backwards: values descend and, among equal
        # values, the original index ascends
        rev = np.flip(x, axis=ax)
        order = np.flip(np.argsort(rev, axis=ax, kind="stable"), axis=ax)
        order = (n - 1) - order
    else:
        order = np.argsort(x, axis=ax, kind="stable")
    idx = np.take(order, np.arange(k), axis=ax).astype(np.int64, copy=False)
    return np.take_along_axis(x, idx, axis=ax), idx


def top_k_1(x: np.ndarray, *, axis: int = -1, k: int | None = None, **_attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """TopK-1: ``k`` attribute (required), always the largest, sorted."""
    if k is None:
        raise ValueError("TopK-1: the k attribute is required")
    return top_k_along(x, int(k), axis, True)


def top_k_10(x: np.ndarray, k: np.ndarray, *, axis: int = -1, **_attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """TopK-10: ``K`` input, always the largest, sorted."""
    return top_k_along(x, _k_from_input(k), axis, True)


def top_k(
    x: np.ndarray, k: np.ndarray, *, axis: int = -1, largest: int = 1, sorted: int = 1, **_attrs: Any
) -> tuple[np.ndarray, np.ndarray]:
    """TopK-11, -24: ``largest`` chooses the end; ``sorted = 0`` gets the sorted order too."""
    return top_k_along(x, _k_from_input(k), axis, bool(largest))


KERNELS = (
    Kernel("TopK", (1,), top_k_1),
    Kernel("TopK", (10,), top_k_10),
    Kernel("TopK", (11, 24), top_k),
)
