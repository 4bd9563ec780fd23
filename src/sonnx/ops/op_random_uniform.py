"""RandomUniform: a tensor of the attribute ``shape`` drawn uniformly from [``low``, ``high``).

Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent), as
``RandomState(seed).uniform(low, high, shape)`` in float64, then rounded to
``dtype`` (default FLOAT). Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._random import float_dtype, generator
from .base import Kernel


def random_uniform(
    *,
    shape: Sequence[int],
    dtype: int = 1,
    low: float = 0.0,
    high: float = 1.0,
    seed: float | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Versions 1 and 22."""
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {list(shape)} has a negative dimension")
    return generator(seed).uniform(low, high, tuple(shape)).astype(float_dtype(dtype))


KERNELS = (Kernel("RandomUniform", (1, 22), random_uniform),)
