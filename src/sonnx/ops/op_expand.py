"""Expand: broadcast the input to the shape given as an input, by NumPy's multidirectional rule.

The result's shape is the broadcast of the input's shape and ``shape``: it
may be larger than ``shape`` (a 1 in ``shape`` keeps the input's dimension,
and ``shape`` may have fewer dimensions). Versions 8 and 13 differ only in the
element types they admit (13 adds bfloat16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def expand(x: np.ndarray, shape: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions 8 and 13."""
    if shape.ndim != 1 or shape.dtype.kind not in "iu":  # NumPy's integer types (np.integer) and no other
        raise ValueError(f"Expand: shape must be a 1-D integer tensor, got {shape.dtype} {shape.shape}")
    dims = tuple(shape.tolist())
    if any(d < 0 for d in dims):
        raise ValueError(f"Expand: negative dimension in {list(dims)}")
    try:
        out = np.broadcast_shapes(x.shape, dims)
    except ValueError:
        raise ValueError(f"Expand: shape {list(x.shape)} does not broadcast with {list(dims)}") from None
    return np.broadcast_to(x, out).copy()


KERNELS = (Kernel("Expand", (8, 13), expand),)
