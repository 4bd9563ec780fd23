"""RandomUniformLike: RandomUniform with the shape of the input (and its type unless ``dtype`` is given).

Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent), as
``RandomState(seed).uniform(low, high, input.shape)`` in float64, then
rounded to the output type. Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import float_dtype, generator
from .base import Kernel


def random_uniform_like(
    x: np.ndarray,
    *,
    dtype: int | None = None,
    low: float = 0.0,
    high: float = 1.0,
    seed: float | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Versions 1 and 22."""
    return generator(seed).uniform(low, high, x.shape).astype(float_dtype(dtype, x))


KERNELS = (Kernel("RandomUniformLike", (1, 22), random_uniform_like),)
