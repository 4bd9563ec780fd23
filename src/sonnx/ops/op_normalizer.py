"""Normalizer (ai.onnx.ml): each row of a [N, C] tensor (or the whole of a [C] tensor) divided by its norm.

MAX: ``Y = X / max(X)``; L1: ``Y = X / sum(|X|)``; L2: ``Y = sign(X) sqrt(X^2 / sum(X^2))``
(that is X divided by its Euclidean norm). A row whose divisor is zero is
copied unchanged. The result is float32 (computed in float64 for double
inputs, in float32 otherwise; sums run over the row in order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._ml import row_sum
from .base import Kernel


def normalizer(x: np.ndarray, *, norm: str = "MAX", **_attrs: Any) -> np.ndarray:
    """Version 1 (the only one)."""
    if x.ndim not in (1, 2):
        raise ValueError(f"the input must be of shape [N, C] or [C], not {list(x.shape)}")
    work: np.ndarray = x.astype(np.float64 if x.dtype == np.float64 else np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        if norm == "MAX":
            if work.shape[-1] == 0:
                return work.astype(np.float32)
            divisor = work.max(axis=-1, keepdims=True)
            scaled = work / divisor
        elif norm == "L1":
            divisor = row_sum(np.abs(work))
            scaled = work / divisor
        elif norm == "L2":
            squares = work * work
            divisor = row_sum(squares)
            scaled = np.sign(work) * np.sqrt(squares / divisor)
        else:
            raise ValueError(f"norm must be MAX, L1 or L2, not {norm!r}")
    return np.where(divisor != 0, scaled, work).astype(np.float32)


KERNELS = (Kernel("Normalizer", (1,), normalizer, domain="ai.onnx.ml"),)
