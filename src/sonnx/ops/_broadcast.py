"""Broadcasting helpers shared by the binary element-wise kernels.

From opset 7 on, ONNX binary operators broadcast like NumPy (multidirectional
broadcasting). Before that (Add-1/6, Sub, Mul, Div, Pow, ...) broadcasting was
opt-in through the ``broadcast`` attribute: B is broadcast to A's shape, with
B's dimensions aligned to A's starting at ``axis`` (default: aligned to the
trailing dimensions). Without ``broadcast`` the shapes must be equal.
"""

from __future__ import annotations

import numpy as np


def legacy_align(a: np.ndarray, b: np.ndarray, broadcast: int, axis: int | None) -> np.ndarray:
    """``b`` reshaped so that NumPy broadcasting reproduces the pre-opset-7 rule against ``a``."""
    if not broadcast:
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} differ and broadcast is 0")
        return b
    if b.ndim == 0:
        return b
    start = a.ndim - b.ndim if axis is None else (axis + a.ndim if axis < 0 else axis)
    if start < 0 or start + b.ndim > a.ndim:
        raise ValueError(f"cannot align shape {b.shape} to {a.shape} at axis {axis}")
    for k, d in enumerate(b.shape):
        if d not in (1, a.shape[start + k]):
            raise ValueError(f"dimension {k} of B ({d}) does not match A's dimension {start + k}")
    return b.reshape((1,) * start + b.shape + (1,) * (a.ndim - start - b.ndim))


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts unidirectionally to ``target`` (broadcasting leaves ``target`` as it is)."""
    # NumPy's rule, aligned on the trailing dimensions: each of ``shape``'s is 1 or equal to ``target``'s
    if len(shape) > len(target):
        return False
    offset = len(target) - len(shape)
    return all(d == 1 or d == target[offset + k] for k, d in enumerate(shape))
