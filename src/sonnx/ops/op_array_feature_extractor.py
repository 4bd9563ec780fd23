"""ArrayFeatureExtractor (ai.onnx.ml): the elements of X at the given indices of its last axis.

``Z[..., j] = X[..., Y.flat[j]]``: the indices (any shape, read flat) select
along the last axis, the leading axes are kept. A 1-D X is one row: Z has
shape [1, len(Y)]. An index outside [0, X.shape[-1]) is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def array_feature_extractor(x: np.ndarray, y: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Version 1 (the only one)."""
    if x.ndim == 0:
        raise ValueError("X must have at least one dimension")
    indices = np.asarray(y, dtype=np.int64).reshape(-1)
    width = x.shape[-1]
    bad = (indices < 0) | (indices >= width)
    if bad.any():
        raise ValueError(f"index {int(indices[bad][0])} is out of range [0, {width}) of X's last axis")
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    return np.asarray(np.take(rows, indices, axis=-1))


KERNELS = (Kernel("ArrayFeatureExtractor", (1,), array_feature_extractor, domain="ai.onnx.ml"),)
