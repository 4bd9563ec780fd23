"""Bernoulli: 1 with probability p, else 0, for each element p of the input.

Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent): with
``u = RandomState(seed).uniform(0, 1, p.shape)`` (float64), the result is
``u < p`` in the type ``dtype`` names, or the input's type when it is absent.
So Bernoulli draws the same ``u`` as RandomUniformLike with the same seed.
Probabilities outside [0, 1] are refused. Version 22 admits bfloat16, nothing
else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import generator, is_float
from .base import Kernel
from .values import numpy_dtype


def bernoulli(x: np.ndarray, *, dtype: int | None = None, seed: float | None = None, **_attrs: Any) -> np.ndarray:
    """Versions 15 and 22."""
    if not is_float(x.dtype):
        raise ValueError(f"Bernoulli's probabilities must be floating, got {x.dtype}")
    p = x.astype(np.float64)
    if ((p < 0) | (p > 1) | np.isnan(p)).any():
        raise ValueError("Bernoulli's probabilities must be in [0, 1]")
    out = numpy_dtype(dtype) if dtype is not None else x.dtype
    return (generator(seed).uniform(0.0, 1.0, p.shape) < p).astype(out)


KERNELS = (Kernel("Bernoulli", (15, 22), bernoulli),)
