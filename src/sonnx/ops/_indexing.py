"""What the gather and scatter kernels share: index checks, element-wise targets, one scatter routine.

Every scatter here is reduced to the same shape of problem: a 2-D view of the
output (``rows x rest``), one target row per update (a 1-D int64 array) and the
updates as ``updates x rest``. :func:`scatter_rows` then writes them, with the
reduction the operator asks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_REDUCERS: dict[str, np.ufunc] = {
    "add": np.add,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}


def text(value: Any) -> str:
    """A string attribute as ``str`` (schema defaults may arrive as bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def normalise_axis(axis: int, rank: int, operator: str) -> int:
    """``axis`` in [-rank, rank-1], made non-negative."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{operator}: axis {axis} outside [{-rank}, {rank - 1}] for rank {rank}")
    return axis + rank if axis < 0 else axis


def integer_indices(indices: np.ndarray, operator: str, name: str = "indices") -> np.ndarray:
    """The index tensor as int64, refused unless its element type is an integer type."""
    if not np.issubdtype(indices.dtype, np.integer):
        raise ValueError(f"{operator}: {name} must be integers, got {indices.dtype}")
    return indices.astype(np.int64, copy=False)


def wrap_indices(idx: np.ndarray, size: int | np.ndarray, operator: str, negative: bool = True) -> np.ndarray:
    """Indices checked against [-size, size-1] (or [0, size-1] without ``negative``), counted from 0.

    ``size`` may be an array broadcasting against ``idx`` (one bound per index component).
    """
    size = np.asarray(size, dtype=np.int64)
    low = -size if negative else np.zeros_like(size)
    if idx.size and (np.any(idx < low) or np.any(idx >= size)):
        bad = idx[(idx < low) | (idx >= size)].reshape(-1)[0]
        span = "[-s, s-1]" if negative else "[0, s-1]"
        raise ValueError(f"{operator}: index {int(bad)} outside {span} for its axis")
    return np.where(idx < 0, idx + size, idx)


def element_targets(
    data_shape: Sequence[int], indices: np.ndarray, axis: int, operator: str, negative: bool = True
) -> tuple[np.ndarray, ...]:
    """The full index of ``data`` each entry of ``indices`` designates (GatherElements, ScatterElements).

    Along ``axis`` the index is the entry's value; along every other axis it is
    the entry's own position, so ``indices`` may be no larger than ``data`` there.
    The result is an open mesh: one broadcastable array per axis.
    """
    rank = len(data_shape)
    if indices.ndim != rank:
        raise ValueError(f"{operator}: indices have rank {indices.ndim}, data rank {rank}")
    for d in range(rank):
        if d != axis and indices.shape[d] > data_shape[d]:
            raise ValueError(
                f"{operator}: indices dimension {d} is {indices.shape[d]}, larger than data's {data_shape[d]}"
            )
    idx = wrap_indices(integer_indices(indices, operator), data_shape[axis], operator, negative)
    mesh = list(np.ogrid[tuple(slice(0, n) for n in indices.shape)]) if rank else []
    mesh[axis] = idx
    return tuple(np.asarray(m, dtype=np.int64) for m in mesh)


def check_reduction(reduction: Any, allowed: Sequence[str], operator: str) -> str:
    """The reduction attribute as a string, refused unless this operator version defines it."""
    name = text(reduction)
    if name not in allowed:
        raise ValueError(f"{operator}: reduction '{name}' is not one of {', '.join(allowed)}")
    return name


def scatter_rows(out: np.ndarray, rows: np.ndarray, updates: np.ndarray, reduction: str) -> None:
    """Write ``updates[i]`` into ``out[rows[i]]`` in place, combining with the reduction.

    ``none`` with a row named more than once is left unspecified by ONNX; sonnx
    defines it as *the last write wins*: the update latest in ``rows`` order
    (row-major order of the index tensor) is the one kept. The reductions are
    applied unbuffered (``ufunc.at``), so repeated rows accumulate.
    """
    if rows.size == 0:
        return
    if reduction == "none":
        _, first_from_end = np.unique(rows[::-1], return_index=True)
        keep = rows.size - 1 - first_from_end
        out[rows[keep]] = updates[keep]
        return
    _REDUCERS[reduction].at(out, rows, updates)


def linear_rows(idx: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Row-major linear positions of the index tuples ``idx[..., j]`` (non-negative) in ``shape``."""
    strides = np.ones(len(shape), dtype=np.int64)
    for j in range(len(shape) - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    if len(shape) == 0:
        return np.zeros(idx.shape[:-1], dtype=np.int64)
    return np.asarray(idx @ strides, dtype=np.int64)


def scatter_elements_into(
    data: np.ndarray,
    indices: np.ndarray,
    updates: np.ndarray,
    axis: int,
    reduction: str,
    operator: str,
    negative: bool = True,
) -> np.ndarray:
    """A copy of ``data`` with ``updates`` written at :func:`element_targets` (Scatter, ScatterElements)."""
    if data.ndim < 1:
        raise ValueError(f"{operator}: data must have rank >= 1")
    if updates.shape != indices.shape:
        raise ValueError(f"{operator}: updates have shape {updates.shape}, indices {indices.shape}")
    ax = normalise_axis(axis, data.ndim, operator)
    targets = element_targets(data.shape, indices, ax, operator, negative)
    out = data.copy()
    if indices.size == 0:
        return out
    rows = np.ravel_multi_index(np.broadcast_arrays(*targets), data.shape).reshape(-1)
    scatter_rows(out.reshape(-1), rows.astype(np.int64), updates.reshape(-1).astype(data.dtype, copy=False), reduction)
    return out
