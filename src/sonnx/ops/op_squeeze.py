"""Squeeze: remove dimensions of size 1 (the listed ones, or all of them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _squeeze(x: np.ndarray, axes: Sequence[int] | None, allow_negative: bool) -> np.ndarray:
    if axes is None:
        return x.reshape(tuple(d for d in x.shape if d != 1))
    norm = []
    for a in axes:
        a = int(a)
        if a < 0 and not allow_negative:
            raise ValueError(f"Squeeze-1: negative axis {a}")
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"Squeeze: axis {a} outside the input rank {x.ndim}")
        a = a + x.ndim if a < 0 else a
        if x.shape[a] != 1:
            raise ValueError(f"Squeeze: dimension {a} has size {x.shape[a]}, not 1")
        norm.append(a)
    if len(set(norm)) != len(norm):
        raise ValueError(f"Squeeze: repeated axis in {list(axes)}")
    return np.squeeze(x, axis=tuple(norm))


def squeeze_attribute_1(x: np.ndarray, axes: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 1: optional ``axes`` attribute, non-negative."""
    return _squeeze(x, axes, allow_negative=False)


def squeeze_attribute(x: np.ndarray, axes: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 11: optional ``axes`` attribute, negative counting from the back."""
    return _squeeze(x, axes, allow_negative=True)


def squeeze(x: np.ndarray, axes: np.ndarray | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 13 on: optional 1-D int64 input ``axes``."""
    if axes is not None and axes.ndim > 1:
        raise ValueError(f"Squeeze's axes must be 1-D, got shape {axes.shape}")
    return _squeeze(x, None if axes is None else axes.reshape(-1).tolist(), allow_negative=True)


KERNELS = (
    Kernel("Squeeze", (1,), squeeze_attribute_1),
    Kernel("Squeeze", (11,), squeeze_attribute),
    Kernel("Squeeze", (13, 21, 23, 24, 25), squeeze),
)
