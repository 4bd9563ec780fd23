"""Sigmoid: 1 / (1 + exp(-x)), element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def sigmoid_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Versions differ only in the types they admit (and version 1's ignored ``consumed_inputs``)."""
    # exp(-|x|) never overflows; the two branches are the same function rearranged: 1 / (1 + e) where
    # x >= 0, e / (1 + e) elsewhere, computed as one quotient. Its numerator is max(e, [x >= 0]): 1 where
    # x >= 0 (as e <= 1), e elsewhere (NaN stays NaN); a branch-free selection, unlike np.where or a mask.
    one = np.ones((), dtype=x.dtype)
    e = np.abs(x, out=np.empty(x.shape, dtype=x.dtype))  # an array even for a 0-d x
    np.negative(e, out=e)
    np.exp(e, out=e)
    denominator = np.add(one, e)
    np.maximum(e, np.greater_equal(x, 0).astype(x.dtype), out=e)
    np.divide(e, denominator, out=e)
    return e.astype(x.dtype, copy=False)


KERNELS = (Kernel("Sigmoid", (1, 6, 13), sigmoid_),)
