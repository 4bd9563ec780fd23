"""Unique: the distinct values (or distinct slices along ``axis``) of ``X``, with three int64 companions.

Outputs: ``Y`` (the distinct values, or ``X`` restricted to the distinct slices
along ``axis``), ``indices`` (position of each one's first occurrence in ``X``,
flattened when no axis), ``inverse_indices`` (for every element or slice of
``X``, its position in ``Y``) and ``counts``. ``sorted = 1`` orders ``Y``
ascending (slices lexicographically, in row-major order of the slice);
``sorted = 0`` keeps the order of first occurrence.

All NaNs count as one value (ONNX leaves this open; NumPy's ``unique`` does the
same). Versions 11 and 28 differ only in the element types (28 adds bfloat16).

Computation: one stable sort (a lexicographic one for slices), after which
equal entries are adjacent and the first of each run is its first occurrence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import normalise_axis
from .base import Kernel


def _comparable(a: np.ndarray) -> np.ndarray:
    """The values in a type NumPy sorts and compares exactly (ml_dtypes floats widened to float32)."""
    if a.dtype.kind == "V":
        return a.astype(np.float32)
    return a


def _differs(prev: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """Element-wise ``prev != nxt`` where two NaNs are equal."""
    ne = prev != nxt
    if prev.dtype.kind in "fc":
        ne &= ~(np.isnan(prev) & np.isnan(nxt))
    return np.asarray(ne)


def unique(
    x: np.ndarray, *, axis: int | None = None, sorted: int = 1, **_attrs: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unique-11, -28."""
    if axis is None:
        rows = _comparable(x.reshape(-1))[:, None]
        ax = 0
        source = x.reshape(-1)
    else:
        if x.ndim < 1:
            raise ValueError("Unique: an axis needs X of rank >= 1")
        ax = normalise_axis(axis, x.ndim, "Unique")
        source = x
        moved = np.moveaxis(x, ax, 0)
        rows = _comparable(moved.reshape(moved.shape[0], -1))
    n, width = rows.shape
    if width == 0:
        order = np.arange(n, dtype=np.int64)
    else:
        # lexsort's last key is the primary one: column 0 must come last
        order = np.lexsort(rows.T[::-1]) if width > 1 else np.argsort(rows[:, 0], kind="stable")
    ranked = rows[order]
    starts = np.ones(n, dtype=bool)
    if n > 1:
        starts[1:] = np.any(_differs(ranked[:-1], ranked[1:]), axis=1) if width else False
    group_of_sorted = np.cumsum(starts) - 1
    first = order[starts].astype(np.int64)
    bounds = np.append(np.flatnonzero(starts), n)
    counts = np.diff(bounds).astype(np.int64)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = group_of_sorted
    if not sorted:
        by_first = np.argsort(first, kind="stable")
        new_rank = np.empty_like(by_first)
        new_rank[by_first] = np.arange(by_first.size)
        first, counts, inverse = first[by_first], counts[by_first], new_rank[inverse]
    y = np.take(source, first, axis=ax)
    return y, first, inverse.astype(np.int64, copy=False), counts


KERNELS = (Kernel("Unique", (11, 28), unique),)
