"""Concat: join tensors along one axis."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _concat(inputs: tuple[np.ndarray, ...], axis: int, allow_negative: bool) -> np.ndarray:
    if not inputs:
        raise ValueError("Concat needs at least one input")
    rank = inputs[0].ndim
    if any(x.ndim != rank for x in inputs):
        raise ValueError(f"Concat: inputs of different ranks {[x.ndim for x in inputs]}")
    if axis < 0 and not allow_negative:
        raise ValueError(f"Concat: negative axis {axis} before opset 11")
    if not -rank <= axis < rank:
        raise ValueError(f"Concat: axis {axis} outside rank {rank}")
    if len({x.dtype for x in inputs}) != 1:
        raise ValueError(f"Concat: inputs of different element types {[str(x.dtype) for x in inputs]}")
    return np.concatenate(inputs, axis=axis)


def concat_1(*inputs: np.ndarray, axis: int = 1, **_attrs: Any) -> np.ndarray:
    """Opset 1: ``axis`` optional, default 1."""
    return _concat(inputs, axis, allow_negative=False)


def concat_4(*inputs: np.ndarray, axis: int, **_attrs: Any) -> np.ndarray:
    """Opset 4: ``axis`` required, non-negative."""
    return _concat(inputs, axis, allow_negative=False)


def concat(*inputs: np.ndarray, axis: int, **_attrs: Any) -> np.ndarray:
    """Opset 11 on: ``axis`` may be negative (counting from the back)."""
    return _concat(inputs, axis, allow_negative=True)


KERNELS = (
    Kernel("Concat", (1,), concat_1),
    Kernel("Concat", (4,), concat_4),
    Kernel("Concat", (11, 13), concat),
)
