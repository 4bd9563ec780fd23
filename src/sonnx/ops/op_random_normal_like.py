"""RandomNormalLike: RandomNormal with the shape of the input (and its type unless ``dtype`` is given).

Drawn by ``_random.draw_like``, in float64, then rounded to the output type.
Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import draw_like
from .base import Kernel


def random_normal_like(x: np.ndarray, *, mean: float = 0.0, scale: float = 1.0, **attrs: Any) -> np.ndarray:
    """Versions 1 and 22 (``dtype`` and ``seed`` as ``_random.draw_like`` reads them)."""
    return draw_like(x, np.random.RandomState.normal, mean, scale, **attrs)


KERNELS = (Kernel("RandomNormalLike", (1, 22), random_normal_like),)
