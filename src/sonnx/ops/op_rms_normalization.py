"""RMSNormalization: divide by the root mean square over the trailing axes ``[axis, ..., rank - 1]``, then scale.

Stage one, in the ``stash_type`` precision (float32 by default):
``RMS = sqrt(mean(X * X) + epsilon)``, ``Normalized = X / RMS``. Stage two:
``Y = cast(Normalized) * scale`` in the type of ``scale`` (which is Y's type;
it broadcasts to X unidirectionally). One version (23).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._normalize import stash_dtype, trailing_axes
from .base import Kernel
from .op_layer_normalization import _unidirectional


def rms_normalization(
    x: np.ndarray, scale: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5, stash_type: int = 1, **_attrs: Any
) -> np.ndarray:
    """RMSNormalization-23."""
    axes = trailing_axes(x.ndim, int(axis))
    stash = stash_dtype(stash_type)
    _unidirectional(scale, x, "scale")
    wide = stash.itemsize >= 4
    work = stash if wide else np.dtype(np.float32)

    def r(v: Any) -> np.ndarray:
        v = np.asarray(v, dtype=work)
        return v if wide else v.astype(stash).astype(work)

    with np.errstate(divide="ignore", invalid="ignore"):
        xs = r(x.astype(stash).astype(work))
        mean_square = r(r(xs * xs).mean(axis=axes, keepdims=True))
        rms = r(np.sqrt(r(mean_square + work.type(epsilon))))
        normalized = r(xs / rms).astype(stash)
    out = scale.dtype
    return np.asarray(normalized.astype(x.dtype).astype(out) * scale).astype(out, copy=False)


KERNELS = (Kernel("RMSNormalization", (23,), rms_normalization),)
