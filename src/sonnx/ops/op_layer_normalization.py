"""LayerNormalization: standardise over the trailing axes ``[axis, ..., rank - 1]``, then scale and shift.

Stage one, in the ``stash_type`` precision (float32 by default, bfloat16 on
request; a float16 or float64 input is converted to it):
``Mean = mean(X)``, ``D = X - Mean``, ``Var = mean(D * D)``,
``InvStdDev = 1 / sqrt(Var + epsilon)``, ``Normalized = D * InvStdDev``.
Stage two, in X's type: ``Y = cast(Normalized) * Scale + B``, where Scale
and the optional B broadcast to X unidirectionally. The optional outputs
``Mean`` and ``InvStdDev`` have X's leading dimensions and size 1 on the
normalised axes, in the stash type. One version (17).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._normalize import check_unidirectional, standardize, stash_dtype, trailing_axes
from .base import Kernel


def layer_normalization(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray | None = None,
    *,
    axis: int = -1,
    epsilon: float = 1e-5,
    stash_type: int = 1,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LayerNormalization-17: ``(Y, Mean, InvStdDev)``."""
    axes = trailing_axes(x.ndim, int(axis))
    stash = stash_dtype(stash_type, ("float32", "bfloat16"))
    check_unidirectional(scale, x, "Scale")
    if b is not None:
        check_unidirectional(b, x, "B")
    normalized, mean, inv = standardize(x, axes, epsilon, stash)
    y = normalized.astype(x.dtype, copy=False) * scale.astype(x.dtype, copy=False)
    if b is not None:
        y = y + b.astype(x.dtype, copy=False)
    return np.asarray(y).astype(x.dtype, copy=False), mean, inv


KERNELS = (Kernel("LayerNormalization", (17,), layer_normalization),)
