"""FeatureVectorizer (ai.onnx.ml): the inputs side by side, as one float32 [N, sum(inputdimensions)] tensor.

Each input is read as [N, C_i] (a 1-D input is one row; higher ranks flatten
after the first axis) and contributes exactly ``inputdimensions[i]`` columns:
its first columns, padded with zeros when it has fewer. All inputs must have
the same N. [Non-normative: truncating and padding are what onnxruntime does
when a width differs from its declared dimension.]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def feature_vectorizer(*xs: np.ndarray, inputdimensions: Sequence[int] | None = None, **_attrs: Any) -> np.ndarray:
    """Version 1 (the only one)."""
    if not xs:
        raise ValueError("FeatureVectorizer needs at least one input")
    rows = [x.reshape(1, -1) if x.ndim <= 1 else x.reshape(x.shape[0], -1) for x in xs]
    widths = [r.shape[1] for r in rows] if inputdimensions is None else [int(d) for d in inputdimensions]
    if len(widths) != len(rows):
        raise ValueError(f"inputdimensions has {len(widths)} entries for {len(rows)} inputs")
    if any(w < 0 for w in widths):
        raise ValueError(f"inputdimensions must not be negative, got {widths}")
    n = rows[0].shape[0]
    if any(r.shape[0] != n for r in rows):
        raise ValueError(f"the inputs have different batch sizes {[r.shape[0] for r in rows]}")
    parts = []
    for r, w in zip(rows, widths, strict=True):  # one block per input
        block = np.zeros((n, w), dtype=np.float32)
        k = min(w, r.shape[1])
        block[:, :k] = r[:, :k]
        parts.append(block)
    return np.concatenate(parts, axis=1) if parts else np.zeros((n, 0), dtype=np.float32)


KERNELS = (Kernel("FeatureVectorizer", (1,), feature_vectorizer, domain="ai.onnx.ml"),)
