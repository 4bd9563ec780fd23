"""RandomNormal: a tensor of the attribute ``shape`` drawn from N(``mean``, ``scale``**2).

Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent), as
``RandomState(seed).normal(mean, scale, shape)`` in float64, then rounded to
``dtype`` (default FLOAT). Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._random import float_dtype, generator
from .base import Kernel


def random_normal(
    *,
    shape: Sequence[int],
    dtype: int = 1,
    mean: float = 0.0,
    scale: float = 1.0,
    seed: float | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Versions 1 and 22."""
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {list(shape)} has a negative dimension")
    return generator(seed).normal(mean, scale, tuple(shape)).astype(float_dtype(dtype))


KERNELS = (Kernel("RandomNormal", (1, 22), random_normal),)
