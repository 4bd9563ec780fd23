"""Adagrad (ai.onnx.preview.training): one ADAGRAD update of tensors X_1..X_n.

Inputs R, T, X_1..X_n, G_1..G_n, H_1..H_n; outputs X_new_1..n, H_new_1..n. Per tensor:
``r = R / (1 + T * decay_factor)``, ``g = norm_coefficient * X + G``, ``H_new = H + g**2``,
``X_new = X - r * g / (sqrt(H_new) + epsilon)``; results in X's and H's types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._optimizer import groups, scalar
from .base import Kernel


def adagrad(
    r: np.ndarray,
    t: np.ndarray,
    *tensors: np.ndarray,
    decay_factor: float = 0.0,
    epsilon: float = 1e-6,
    norm_coefficient: float = 0.0,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """One version."""
    rate = scalar(r, "R") / (1.0 + scalar(t, "T") * decay_factor)
    new_x, new_h = [], []
    for x, g, h in groups(tensors, 3, "X, G, H"):  # one update per optimized tensor
        reg = norm_coefficient * x + g
        h_new = h + reg * reg
        new_x.append((x - rate * reg / (np.sqrt(h_new) + epsilon)).astype(x.dtype))
        new_h.append(h_new.astype(h.dtype))
    return (*new_x, *new_h)


KERNELS = (Kernel("Adagrad", (1,), adagrad, domain="ai.onnx.preview.training"),)
