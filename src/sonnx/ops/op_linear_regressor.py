"""LinearRegressor (ai.onnx.ml): ``Y = post_transform(X W^T + b)``, float32 [N, targets].

W holds ``targets`` rows of F coefficients (``coefficients``, row after row),
b the ``intercepts`` (one per target, or none: 0). The post transforms are
those of the ML operators (:mod:`sonnx.ops._ml`), applied to one target too.
[Non-normative: onnxruntime applies no transform but PROBIT to a single target.]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._linear import affine_scores
from ._ml import post_transform as transform
from .base import Kernel


def linear_regressor(
    x: np.ndarray,
    *,
    coefficients: Sequence[float] | None = None,
    intercepts: Sequence[float] | None = None,
    targets: int = 1,
    post_transform: str = "NONE",
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    if targets < 1:
        raise ValueError(f"targets must be positive, got {targets}")
    scores = affine_scores(x, coefficients, intercepts, targets)
    return transform(scores.astype(np.float32), post_transform)


KERNELS = (Kernel("LinearRegressor", (1,), linear_regressor, domain="ai.onnx.ml"),)
