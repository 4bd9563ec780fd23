"""Reshape: the same elements (row-major order) under a new shape."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _resolve(data: np.ndarray, requested: Sequence[int], allowzero: int) -> tuple[int, ...]:
    """The output shape: 0 copies the input's dimension (unless ``allowzero``), one -1 is inferred."""
    dims = [int(d) for d in requested]
    if any(d < -1 for d in dims):
        raise ValueError(f"Reshape: invalid dimension in {dims}")
    if dims.count(-1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {dims}")
    if allowzero and 0 in dims and -1 in dims:
        raise ValueError(f"Reshape: with allowzero, a shape cannot hold both 0 and -1, got {dims}")
    if not allowzero:
        for k, d in enumerate(dims):
            if d == 0:
                if k >= data.ndim:
                    raise ValueError(f"Reshape: dimension {k} is 0 but the input has rank {data.ndim}")
                dims[k] = data.shape[k]
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or data.size % known != 0:
            raise ValueError(f"Reshape: cannot infer the -1 dimension of {dims} for {data.size} elements")
        dims[dims.index(-1)] = data.size // known
    if math.prod(dims) != data.size:
        raise ValueError(f"Reshape: shape {dims} does not hold {data.size} elements (input shape {data.shape})")
    return tuple(dims)


def reshape_attribute(data: np.ndarray, shape: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 1: the new shape is the ``shape`` attribute."""
    if shape is None:
        raise ValueError("Reshape-1 needs its shape attribute")
    return data.reshape(_resolve(data, shape, 0))


def reshape(data: np.ndarray, shape: np.ndarray, allowzero: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 5 on: the new shape is an int64 input; ``allowzero`` (14 on) makes 0 a real zero dimension."""
    if shape.ndim != 1:
        raise ValueError(f"Reshape's shape must be 1-D, got shape {shape.shape}")
    return data.reshape(_resolve(data, shape.tolist(), allowzero))


KERNELS = (
    Kernel("Reshape", (1,), reshape_attribute),
    Kernel("Reshape", (5, 13, 14, 19, 21, 23, 24, 25), reshape),
)
