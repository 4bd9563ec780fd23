"""Clip: limit every element to the interval [min, max].

When ``min`` exceeds ``max`` every element becomes ``max`` (the order of the
two comparisons below: first raise to ``min``, then lower to ``max``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _clip(x: np.ndarray, low: Any, high: Any) -> np.ndarray:
    y = x
    if low is not None:
        y = np.maximum(y, np.asarray(low).astype(x.dtype, copy=False))
    if high is not None:
        y = np.minimum(y, np.asarray(high).astype(x.dtype, copy=False))
    return np.asarray(y).astype(x.dtype, copy=False)


def clip_attributes(x: np.ndarray, min: float | None = None, max: float | None = None, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: bounds are attributes (Clip-6 defaults them to -/+ FLT_MAX; Clip-1 has no default)."""
    return _clip(x, min, max)


def clip_inputs(
    x: np.ndarray, low: np.ndarray | None = None, high: np.ndarray | None = None, **_attrs: Any
) -> np.ndarray:
    """Opset 11 on: optional scalar inputs ``min`` and ``max``; an omitted bound does not clip."""
    for name, bound in (("min", low), ("max", high)):
        if bound is not None and bound.size != 1:
            raise ValueError(f"Clip's {name} must be a scalar, got shape {bound.shape}")
    return _clip(x, None if low is None else low.reshape(()), None if high is None else high.reshape(()))


KERNELS = (
    Kernel("Clip", (1, 6), clip_attributes),
    Kernel("Clip", (11, 12, 13), clip_inputs),
)
