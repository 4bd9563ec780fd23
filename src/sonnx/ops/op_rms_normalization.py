"""RMSNormalization: divide by the root mean square over the trailing axes ``[axis, ..., rank - 1]``, then scale.

Stage one, in the ``stash_type`` precision (float32 by default):
``RMS = sqrt(mean(X * X) + epsilon)``, ``Normalized = X / RMS``. Stage two:
``Y = cast(Normalized) * scale`` in the type of ``scale`` (which is Y's type;
it broadcasts to X unidirectionally). One version (23).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._normalize import check_unidirectional, stash_dtype, stash_steps, trailing_axes
from .base import Kernel


def rms_normalization(
    x: np.ndarray, scale: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5, stash_type: int = 1, **_attrs: Any
) -> np.ndarray:
    """RMSNormalization-23."""
    axes = trailing_axes(x.ndim, int(axis))
    stash = stash_dtype(stash_type)
    check_unidirectional(scale, x, "scale")
    work, r = stash_steps(stash)
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = r(x.astype(stash).astype(work))
        mean_square = r(r(xs * xs).mean(axis=axes, keepdims=True))
        rms = r(np.sqrt(r(mean_square + work.type(epsilon))))
        normalized = r(xs / rms).astype(stash)
    out = scale.dtype
    return np.asarray(normalized.astype(x.dtype).astype(out) * scale).astype(out, copy=False)


KERNELS = (Kernel("RMSNormalization", (23,), rms_normalization),)
