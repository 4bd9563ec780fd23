"""GatherElements: ``out[i_0, ..., i_r] = data[i_0, ..., indices[i_0, ..., i_r], ..., i_r]`` (the index replaces axis).

The output has the shape of ``indices``. Versions 11 and 13 differ only in the
element types they admit (13 adds bfloat16). Indices count from the back when
negative; one outside [-s, s-1] is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._indexing import element_targets, normalise_axis
from .base import Kernel


def gather_elements(data: np.ndarray, indices: np.ndarray, *, axis: int = 0, **_attrs: Any) -> np.ndarray:
    """GatherElements-11, -13."""
    if data.ndim < 1:
        raise ValueError("GatherElements: data must have rank >= 1")
    ax = normalise_axis(axis, data.ndim, "GatherElements")
    return np.asarray(data[element_targets(data.shape, indices, ax, "GatherElements")])


KERNELS = (Kernel("GatherElements", (11, 13), gather_elements),)
