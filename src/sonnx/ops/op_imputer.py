"""Imputer (ai.onnx.ml): elements equal to the replaced value take the imputed value of their feature.

``Y = where(X == replaced, imputed[f], X)`` with f the position on the last
axis; ``imputed`` has one value (for every feature) or one per feature. Float
inputs use ``replaced_value_float`` / ``imputed_value_floats`` (a NaN
replaced value matches NaN elements), integer inputs the ``*_int64``
attributes. The type is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def imputer(
    x: np.ndarray,
    *,
    imputed_value_floats: Sequence[float] | None = None,
    imputed_value_int64s: Sequence[int] | None = None,
    replaced_value_float: float = 0.0,
    replaced_value_int64: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """Version 1 (the only one)."""
    is_float = x.dtype.kind == "f"
    imputed_list = imputed_value_floats if is_float else imputed_value_int64s
    if not imputed_list:
        kind = "imputed_value_floats" if is_float else "imputed_value_int64s"
        raise ValueError(f"a {x.dtype} input needs {kind}")
    imputed = np.asarray(imputed_list, dtype=np.float32 if is_float else np.int64).astype(x.dtype)
    features = x.shape[-1] if x.ndim else 1
    if len(imputed) not in (1, features):
        raise ValueError(f"{len(imputed)} imputed values for {features} features (1 or {features} are allowed)")
    if is_float:
        replaced = x.dtype.type(replaced_value_float)
        hit = np.isnan(x) if np.isnan(replaced) else x == replaced
    else:
        hit = x == replaced_value_int64
    return np.where(hit, imputed, x).astype(x.dtype, copy=False)


KERNELS = (Kernel("Imputer", (1,), imputer, domain="ai.onnx.ml"),)
