"""ReduceMean: the arithmetic mean over the given axes (all of them by default)."""

from __future__ import annotations

import numpy as np

from ._reduce import reduction_kernels


def _mean(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    # the mean of an empty set is NaN (0/0); integer means truncate back to the input type
    with np.errstate(invalid="ignore", divide="ignore"):
        wide = np.float64 if x.dtype.kind in "iub" else np.promote_types(x.dtype, np.float32)
        total = np.sum(x, axis=axes, keepdims=keepdims, dtype=wide)
        count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        return np.asarray(total / count).astype(x.dtype, copy=False)


KERNELS = reduction_kernels("ReduceMean", _mean, (1, 11, 13), (18,))
