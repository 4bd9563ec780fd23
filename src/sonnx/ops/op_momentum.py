"""Momentum (ai.onnx.preview.training): one update of tensors X_1..X_n by SGD with momentum.

Inputs R, T, X_1..X_n, G_1..G_n, V_1..V_n; outputs X_new_1..n, V_new_1..n. Per
tensor: ``g = norm_coefficient * X + G``, ``b = beta`` when T > 0 (else 1),
``V_new = alpha * V + b * g``; ``mode`` "standard": ``X_new = X - R * V_new``,
"nesterov": ``X_new = X - R * (g + alpha * V_new)``; results in X's and V's types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._optimizer import groups, scalar
from .base import Kernel


def momentum(
    r: np.ndarray,
    t: np.ndarray,
    *tensors: np.ndarray,
    alpha: float,
    beta: float,
    mode: str,
    norm_coefficient: float,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """One version."""
    if mode not in ("standard", "nesterov"):
        raise ValueError(f"Momentum's mode must be 'standard' or 'nesterov', got {mode!r}")
    rate = scalar(r, "R")
    b = beta if scalar(t, "T") > 0 else 1.0
    new_x, new_v = [], []
    for x, g, v in groups(tensors, 3, "X, G, V"):  # one update per optimized tensor
        reg = norm_coefficient * x + g
        v_new = alpha * v + b * reg
        step = v_new if mode == "standard" else reg + alpha * v_new
        new_x.append((x - rate * step).astype(x.dtype))
        new_v.append(v_new.astype(v.dtype))
    return (*new_x, *new_v)


KERNELS = (Kernel("Momentum", (1,), momentum, domain="ai.onnx.preview.training"),)
