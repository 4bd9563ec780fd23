"""RandomUniform: a tensor of the attribute ``shape`` drawn uniformly from [``low``, ``high``).

As RandomNormal (``_random.draw``), with NumPy's uniform distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._random import draw
from .base import Kernel


def random_uniform(*, shape: Sequence[int], low: float = 0.0, high: float = 1.0, **attrs: Any) -> np.ndarray:
    """Versions 1 and 22 (``dtype`` and ``seed`` as ``_random.draw`` reads them)."""
    return draw(np.random.RandomState.uniform, low, high, shape, **attrs)


KERNELS = (Kernel("RandomUniform", (1, 22), random_uniform),)
