"""The affine scores shared by LinearClassifier and LinearRegressor: ``X W^T + b``, one row of W per output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._ml import as_matrix


def work_type(x: np.ndarray) -> type[np.floating]:
    """float64 for double inputs, float32 for float32 and integer inputs (the result is float32 either way)."""
    return np.float64 if x.dtype == np.float64 else np.float32


def affine_scores(x: np.ndarray, coefficients: Sequence[float] | None, intercepts: Sequence[float] | None,
                  outputs: int | None) -> np.ndarray:
    """``X W^T + b`` for X [N, F] (or [F]); W is ``coefficients`` read as rows of F, b is ``intercepts`` or 0.

    ``outputs`` fixes the number of rows of W (None: as many as the coefficients make).
    """
    rows = as_matrix(x)
    features = rows.shape[1]
    dtype = work_type(x)
    coef = np.asarray(coefficients if coefficients is not None else [], dtype=np.float32).astype(dtype)
    if outputs is None:
        if features == 0 or len(coef) % features:
            raise ValueError(f"{len(coef)} coefficients are not a whole number of rows of {features} features")
        outputs = len(coef) // features
    if len(coef) != outputs * features:
        raise ValueError(f"{len(coef)} coefficients for {outputs} outputs of {features} features")
    weights = coef.reshape(outputs, features)
    scores = rows.astype(dtype) @ weights.T
    if intercepts is not None and len(intercepts):
        bias = np.asarray(intercepts, dtype=np.float32).astype(dtype)
        if len(bias) != outputs:
            raise ValueError(f"{len(bias)} intercepts for {outputs} outputs")
        scores = scores + bias
    return np.asarray(scores, dtype=dtype)
