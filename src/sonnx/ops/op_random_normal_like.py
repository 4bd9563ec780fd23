"""RandomNormalLike: RandomNormal with the shape of the input (and its type unless ``dtype`` is given).

Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent), as
``RandomState(seed).normal(mean, scale, input.shape)`` in float64, then
rounded to the output type. Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import float_dtype, generator
from .base import Kernel


def random_normal_like(
    x: np.ndarray,
    *,
    dtype: int | None = None,
    mean: float = 0.0,
    scale: float = 1.0,
    seed: float | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Versions 1 and 22."""
    return generator(seed).normal(mean, scale, x.shape).astype(float_dtype(dtype, x))


KERNELS = (Kernel("RandomNormalLike", (1, 22), random_normal_like),)
