"""Shared argument handling of the training optimizers (Adagrad, Adam, Momentum, domain ai.onnx.preview.training).

Each takes a learning rate R and an update count T (scalars), then k groups
of n tensors each (X_1..X_n, G_1..G_n, ...), and returns the updated groups in
the same grouped order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def scalar(value: np.ndarray, name: str) -> Any:
    """The one element of a scalar input (ValueError for any other size)."""
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError(f"{name} must be a scalar, got shape {list(arr.shape)}")
    return arr.reshape(()).item()


def groups(tensors: Sequence[np.ndarray], k: int, names: str) -> list[tuple[np.ndarray, ...]]:
    """The variadic inputs cut into k groups of n, returned as n tuples (one per optimized tensor)."""
    if not tensors or len(tensors) % k:
        raise ValueError(f"the inputs after R and T must be {k} groups of equal length ({names}), got {len(tensors)}")
    n = len(tensors) // k
    return [tuple(np.asarray(tensors[g * n + i]) for g in range(k)) for i in range(n)]
