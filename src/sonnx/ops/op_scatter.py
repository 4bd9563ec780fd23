"""Scatter (deprecated, replaced by ScatterElements): ``out[..., indices[i], ...] = updates[i]`` along ``axis``.

Version 9 defines no meaning for a negative index (sonnx refuses one);
version 11 lets indices count from the back, exactly as ScatterElements-11.
Like ScatterElements, a position written twice is unspecified in ONNX; sonnx
keeps the last write in row-major order of ``indices``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import scatter_elements_into
from .base import Kernel


def scatter_9(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int = 0, **_attrs: Any
) -> np.ndarray:
    """Scatter-9: indices in [0, s-1]."""
    return scatter_elements_into(data, indices, updates, axis, "none", "Scatter-9", negative=False)


def scatter_11(
    data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int = 0, **_attrs: Any
) -> np.ndarray:
    """Scatter-11: indices in [-s, s-1]."""
    return scatter_elements_into(data, indices, updates, axis, "none", "Scatter")


KERNELS = (
    Kernel("Scatter", (9,), scatter_9),
    Kernel("Scatter", (11,), scatter_11),
)
