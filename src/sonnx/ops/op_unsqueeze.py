"""Unsqueeze: insert dimensions of size 1 at the given positions of the output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _unsqueeze(x: np.ndarray, axes: Sequence[int], allow_negative: bool) -> np.ndarray:
    rank = x.ndim + len(axes)
    norm = []
    for a in axes:
        a = int(a)
        if a < 0 and not allow_negative:
            raise ValueError(f"Unsqueeze-1: negative axis {a}")
        if not -rank <= a < rank:
            raise ValueError(f"Unsqueeze: axis {a} outside the output rank {rank}")
        norm.append(a + rank if a < 0 else a)
    if len(set(norm)) != len(norm):
        raise ValueError(f"Unsqueeze: repeated axis in {list(axes)}")
    return np.expand_dims(x, tuple(norm))


def unsqueeze_attribute_1(x: np.ndarray, axes: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 1: the ``axes`` attribute, non-negative."""
    if axes is None:
        raise ValueError("Unsqueeze needs its axes attribute")
    return _unsqueeze(x, axes, allow_negative=False)


def unsqueeze_attribute(x: np.ndarray, axes: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 11: the ``axes`` attribute, negative counting from the back of the output."""
    if axes is None:
        raise ValueError("Unsqueeze needs its axes attribute")
    return _unsqueeze(x, axes, allow_negative=True)


def unsqueeze(x: np.ndarray, axes: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 13 on: ``axes`` is a 1-D int64 input."""
    if axes.ndim > 1:
        raise ValueError(f"Unsqueeze's axes must be 1-D, got shape {axes.shape}")
    return _unsqueeze(x, axes.reshape(-1).tolist(), allow_negative=True)


KERNELS = (
    Kernel("Unsqueeze", (1,), unsqueeze_attribute_1),
    Kernel("Unsqueeze", (11,), unsqueeze_attribute),
    Kernel("Unsqueeze", (13, 21, 23, 24, 25), unsqueeze),
)
