"""Multinomial: ``sample_size`` class indices per batch row, drawn from softmax of the row's log-probabilities.

Input [batch, classes] holds unnormalised log-probabilities; output
[batch, sample_size] holds indices in ``dtype`` (INT32 by default, or INT64).
Values come from sonnx's generator (``_random``: NumPy's legacy RandomState
seeded by the ``seed`` attribute, seed 0 when absent): with
``u = RandomState(seed).uniform(0, 1, (batch, sample_size))`` (float64) and c
the row's cumulative probabilities, the sample is the number of entries of c
not above u (inverse transform sampling; a class of probability 0 is never
drawn). Version 22 admits bfloat16, nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from ._random import generator
from .base import Kernel
from .values import numpy_dtype


def multinomial(
    x: np.ndarray, *, dtype: int = TensorProto.INT32, sample_size: int = 1, seed: float | None = None, **_attrs: Any
) -> np.ndarray:
    """Versions 7 and 22."""
    if x.ndim != 2 or x.shape[1] == 0:
        raise ValueError(f"Multinomial's input must be [batch, classes] with classes > 0, got {list(x.shape)}")
    if dtype not in (TensorProto.INT32, TensorProto.INT64):
        raise ValueError(f"Multinomial's dtype must be INT32 or INT64, got {dtype}")
    if sample_size < 1:
        raise ValueError(f"sample_size must be positive, got {sample_size}")
    logits = x.astype(np.float64)
    top = logits.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        raise ValueError("each row of Multinomial's input needs a finite largest log-probability")
    weights = np.exp(logits - top)
    cumulative = np.cumsum(weights, axis=1)
    cumulative /= cumulative[:, -1:]
    u = generator(seed).uniform(0.0, 1.0, (x.shape[0], sample_size))
    index = (cumulative[:, None, :] <= u[:, :, None]).sum(axis=2)
    return np.minimum(index, x.shape[1] - 1).astype(numpy_dtype(dtype))


KERNELS = (Kernel("Multinomial", (7, 22), multinomial),)
