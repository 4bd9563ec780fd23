"""ReduceLogSumExp: log(sum(exp(x))) over the given axes (all of them by default).

Computed as m + log(sum(exp(x - m))) with m the largest element (when finite),
so that large inputs do not overflow. An empty reduction is -inf. Half-width
floats are computed in float32; integer inputs (versions before 28) in
float64, truncated back. Versions 1, 11 and 13 take ``axes`` as an attribute
(version 1 without negative axes), 18 and 28 as an input with
``noop_with_empty_axes``; 28 drops the integer types.
"""

from __future__ import annotations

import numpy as np

from ._precision import as_float
from ._reduce import reduction_kernels


def _log_sum_exp(x: np.ndarray, axes: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    w = as_float(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        top = np.max(w, axis=axes, keepdims=True, initial=-np.inf)
        shift = np.where(np.isfinite(top), top, 0).astype(w.dtype)
        out = np.log(np.sum(np.exp(w - shift), axis=axes, keepdims=True)) + shift
    if not keepdims:
        out = out.reshape(()) if axes is None else np.squeeze(out, axis=axes)
    return out.astype(x.dtype)


KERNELS = reduction_kernels("ReduceLogSumExp", _log_sum_exp, (1, 11, 13), (18, 28))
