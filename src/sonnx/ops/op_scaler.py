"""Scaler (ai.onnx.ml): ``Y = (X - offset) * scale``, per feature of the last axis, as float32.

``offset`` and ``scale`` have one value (for every element) or one per
feature (the last axis); an omitted one is 0 (offset) or 1 (scale). Float32
and integer inputs compute in float32, double inputs in float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _per_feature(name: str, values: Sequence[float] | None, features: int, neutral: float) -> np.ndarray:
    arr = np.asarray(values if values else [neutral], dtype=np.float32)
    if len(arr) not in (1, features):
        raise ValueError(f"{name} has {len(arr)} values for {features} features (1 or {features} are allowed)")
    return arr


def scaler(
    x: np.ndarray,
    *,
    offset: Sequence[float] | None = None,
    scale: Sequence[float] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    features = x.shape[-1] if x.ndim else 1
    work = np.dtype(np.float64 if x.dtype == np.float64 else np.float32)
    off: np.ndarray = _per_feature("offset", offset, features, 0.0).astype(work)
    mul: np.ndarray = _per_feature("scale", scale, features, 1.0).astype(work)
    values: np.ndarray = x.astype(work)
    return np.asarray((values - off) * mul).astype(np.float32)


KERNELS = (Kernel("Scaler", (1,), scaler, domain="ai.onnx.ml"),)
