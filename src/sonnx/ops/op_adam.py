"""Adam (ai.onnx.preview.training): one Adam update of tensors X_1..X_n.

Inputs R, T, X_1..X_n, G_1..G_n, V_1..V_n, H_1..H_n; outputs X_new_1..n,
V_new_1..n, H_new_1..n. Per tensor: ``g = norm_coefficient * X + G``,
``V_new = alpha * V + (1 - alpha) * g``, ``H_new = beta * H + (1 - beta) * g**2``,
``R' = R * sqrt(1 - beta**T) / (1 - alpha**T)`` when T > 0 (else R),
``X_new = (1 - norm_coefficient_post) * (X - R' * V_new / (sqrt(H_new) + epsilon))``;
results in the types of X, V and H.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._optimizer import groups, scalar
from .base import Kernel


def adam(
    r: np.ndarray,
    t: np.ndarray,
    *tensors: np.ndarray,
    alpha: float = 0.9,
    beta: float = 0.999,
    epsilon: float = 1e-6,
    norm_coefficient: float = 0.0,
    norm_coefficient_post: float = 0.0,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """One version."""
    rate, step = scalar(r, "R"), scalar(t, "T")
    if step > 0:
        rate = rate * math.sqrt(1.0 - beta**step) / (1.0 - alpha**step)
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in groups(tensors, 4, "X, G, V, H"):  # one update per optimized tensor
        reg = norm_coefficient * x + g
        v_new = alpha * v + (1.0 - alpha) * reg
        h_new = beta * h + (1.0 - beta) * (reg * reg)
        x_new = x - rate * (v_new / (np.sqrt(h_new) + epsilon))
        new_x.append(((1.0 - norm_coefficient_post) * x_new).astype(x.dtype))
        new_v.append(v_new.astype(v.dtype))
        new_h.append(h_new.astype(h.dtype))
    return (*new_x, *new_v, *new_h)


KERNELS = (Kernel("Adam", (1,), adam, domain="ai.onnx.preview.training"),)
