"""ConstantOfShape: a tensor of the given shape filled with one value."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def constant_of_shape(shape: np.ndarray, value: Any | None = None, **_attrs: Any) -> np.ndarray:
    """All versions (later ones admit more element types): ``value`` is a one-element tensor, default float 0."""
    if shape.ndim != 1 or not np.issubdtype(shape.dtype, np.integer):
        raise ValueError(f"ConstantOfShape's input must be a 1-D integer tensor, got {shape.dtype} {shape.shape}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"ConstantOfShape: negative dimension in {dims}")
    if value is None:
        fill = np.zeros((), dtype=np.float32)
    else:
        fill = np.asarray(value)
        if fill.size != 1:
            raise ValueError(f"ConstantOfShape's value must have one element, got shape {fill.shape}")
        fill = fill.reshape(())
    return np.full(dims, fill, dtype=fill.dtype)


KERNELS = (Kernel("ConstantOfShape", (9, 20, 21, 23, 24, 25), constant_of_shape),)
