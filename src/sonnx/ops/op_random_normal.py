"""RandomNormal: a tensor of the attribute ``shape`` drawn from N(``mean``, ``scale``**2).

Drawn by ``_random.draw`` in float64 and rounded to ``dtype`` (default FLOAT).
Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._random import draw
from .base import Kernel


def random_normal(*, shape: Sequence[int], mean: float = 0.0, scale: float = 1.0, **attrs: Any) -> np.ndarray:
    """Versions 1 and 22 (``dtype`` and ``seed`` as ``_random.draw`` reads them)."""
    return draw(np.random.RandomState.normal, mean, scale, shape, **attrs)


KERNELS = (Kernel("RandomNormal", (1, 22), random_normal),)
