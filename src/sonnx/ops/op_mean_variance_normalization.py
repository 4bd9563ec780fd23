"""MeanVarianceNormalization: ``Y = (X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9)`` over ``axes``.

The expectations are taken over ``axes`` (default ``[0, 2, 3]``: per channel
of an NCHW tensor; negative axes count from the back). The operator text
writes the formula without the ``1e-9``; the operator's function body (its
definition as a graph of other operators) adds it to the standard deviation,
so a constant input gives 0 rather than NaN; sonnx follows the function body.
Computed in at least float32. Versions 9 and 13 differ only in the types they admit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._reduce import normalise_axes
from ._windows import accumulation_dtype
from .base import Kernel


def mean_variance_normalization(x: np.ndarray, *, axes: Sequence[int] = (0, 2, 3), **_attrs: Any) -> np.ndarray:
    """MeanVarianceNormalization-9 and -13."""
    selected = normalise_axes(x, axes)
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    xa = x.astype(acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = xa - xa.mean(axis=selected, keepdims=True)
        std = np.sqrt((d * d).mean(axis=selected, keepdims=True))
        y = d / (std + acc.type(1e-9))
    return y.astype(x.dtype)


KERNELS = (Kernel("MeanVarianceNormalization", (9, 13), mean_variance_normalization),)
