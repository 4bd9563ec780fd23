"""RandomUniformLike: RandomUniform with the shape of the input (and its type unless ``dtype`` is given).

As RandomNormalLike (``_random.draw_like``), with NumPy's uniform distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import draw_like
from .base import Kernel


def random_uniform_like(x: np.ndarray, *, low: float = 0.0, high: float = 1.0, **attrs: Any) -> np.ndarray:
    """Versions 1 and 22 (``dtype`` and ``seed`` as ``_random.draw_like`` reads them)."""
    return draw_like(x, np.random.RandomState.uniform, low, high, **attrs)


KERNELS = (Kernel("RandomUniformLike", (1, 22), random_uniform_like),)
