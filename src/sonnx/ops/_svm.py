"""Support-vector kernels shared by SVMClassifier and SVMRegressor.

``K(x, v)`` for the rows x of X [N, F] and v of V [S, F], with ``kernel_params``
= (gamma, coef0, degree), zero when not given:

* LINEAR: ``x . v``;
* POLY: ``(gamma x . v + coef0) ^ degree``;
* RBF: ``exp(-gamma |x - v|^2)``;
* SIGMOID: ``tanh(gamma x . v + coef0)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

KERNEL_TYPES = ("LINEAR", "POLY", "RBF", "SIGMOID")


def kernel_parameters(kernel_params: Sequence[float] | None) -> tuple[float, float, float]:
    """(gamma, coef0, degree) from the attribute (missing entries are 0)."""
    values = list(kernel_params or [])
    if len(values) > 3:
        raise ValueError(f"kernel_params has {len(values)} values, at most 3 (gamma, coef0, degree)")
    values += [0.0] * (3 - len(values))
    return float(values[0]), float(values[1]), float(values[2])


def kernel_matrix(x: np.ndarray, v: np.ndarray, kernel_type: str, params: tuple[float, float, float]) -> np.ndarray:
    """K [N, S] between the rows of x [N, F] and of v [S, F], in x's dtype."""
    if kernel_type not in KERNEL_TYPES:
        raise ValueError(f"kernel_type must be one of {', '.join(KERNEL_TYPES)}, not {kernel_type!r}")
    dtype = x.dtype.type
    gamma, coef0, degree = (dtype(p) for p in params)
    if kernel_type == "RBF":
        diff = x[:, None, :] - v[None, :, :]
        squares = diff * diff
        # adds the features in order
        dist = np.cumsum(squares, axis=-1)[..., -1] if x.shape[1] else np.zeros((x.shape[0], v.shape[0]), x.dtype)
        return np.exp((-gamma * dist).astype(np.float64)).astype(x.dtype)
    dot = x @ v.T
    if kernel_type == "LINEAR":
        return dot
    if kernel_type == "POLY":
        return np.power(gamma * dot + coef0, degree).astype(x.dtype)
    return np.tanh(gamma * dot + coef0).astype(x.dtype)
