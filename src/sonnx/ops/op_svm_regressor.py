"""SVMRegressor (ai.onnx.ml): support-vector regression or one-class detection, float32 [N, 1].

With ``n_supports`` S > 0 support vectors v_s (``support_vectors``, rows of F):
``y = sum_s coefficients[s] K(x, v_s) + rho[0]`` (K from ``kernel_type`` and
``kernel_params``, :mod:`sonnx.ops._svm`). With S = 0 the SVM is linear: the
coefficients are one row w of F and ``y = x . w + rho[0]`` (the kernel does
not apply). ``one_class`` turns y into +1
(y > 0) or -1. ``post_transform`` is applied last. Float32 and integer inputs
compute in float32, double inputs in float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._linear import work_type
from ._ml import as_matrix
from ._ml import post_transform as transform
from ._svm import kernel_matrix, kernel_parameters
from .base import Kernel


def svm_regressor(
    x: np.ndarray,
    *,
    coefficients: Sequence[float] | None = None,
    kernel_params: Sequence[float] | None = None,
    kernel_type: str = "LINEAR",
    n_supports: int = 0,
    one_class: int = 0,
    post_transform: str = "NONE",
    rho: Sequence[float] | None = None,
    support_vectors: Sequence[float] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    dtype = work_type(x)
    rows = as_matrix(x).astype(dtype)
    features = rows.shape[1]
    coef = np.asarray(coefficients or [], dtype=np.float32).astype(dtype)
    offset = dtype(np.float32(rho[0])) if rho else dtype(0)
    params = kernel_parameters(kernel_params)
    if n_supports > 0:
        vectors = np.asarray(support_vectors or [], dtype=np.float32).astype(dtype)
        if len(vectors) != n_supports * features:
            raise ValueError(f"{len(vectors)} support vector values for {n_supports} vectors of {features} features")
        if len(coef) != n_supports:
            raise ValueError(f"{len(coef)} coefficients for {n_supports} support vectors")
        y = kernel_matrix(rows, vectors.reshape(n_supports, features), kernel_type, params) @ coef + offset
    else:
        if len(coef) != features:
            raise ValueError(f"a linear SVM needs one coefficient per feature: {len(coef)} for {features}")
        y = rows @ coef + offset
    if one_class:
        y = np.where(y > 0, 1, -1).astype(dtype)
    return transform(y.reshape(-1, 1).astype(np.float32), post_transform)


KERNELS = (Kernel("SVMRegressor", (1,), svm_regressor, domain="ai.onnx.ml"),)
