"""CenterCropPad: crop or zero-pad the chosen axes to a target length, keeping the content centred.

For an axis of length ``n`` and target ``t``: when ``n > t`` the window
``[(n - t) // 2, (n - t) // 2 + t)`` is kept; when ``n < t`` the input lands at
offset ``(t - n) // 2`` in a zero-filled axis (the odd element of padding goes
at the end). ``axes`` (default: all, negative values count from the back)
names the axes ``shape`` refers to. One version (18).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def center_crop_pad(
    x: np.ndarray, shape: np.ndarray, *, axes: Sequence[int] | None = None, **_attrs: Any
) -> np.ndarray:
    """CenterCropPad-18."""
    rank = x.ndim
    ax = list(range(rank)) if axes is None or len(axes) == 0 else [int(a) for a in axes]
    for a in ax:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for a tensor of rank {rank}")
    ax = [a % rank for a in ax]
    if len(set(ax)) != len(ax):
        raise ValueError(f"axes {ax} repeat an axis")
    target = np.asarray(shape).astype(np.int64).reshape(-1)
    if target.size != len(ax):
        raise ValueError(f"shape has {target.size} values for {len(ax)} axes")
    if (target < 0).any():
        raise ValueError(f"shape must not be negative, got {target.tolist()}")
    out_shape = list(x.shape)
    src: list[slice] = [slice(None)] * rank
    dst: list[slice] = [slice(None)] * rank
    for a, t in zip(ax, target.tolist(), strict=True):
        n = x.shape[a]
        out_shape[a] = t
        if n >= t:
            start = (n - t) // 2
            src[a] = slice(start, start + t)
        else:
            start = (t - n) // 2
            dst[a] = slice(start, start + n)
    out = np.zeros(out_shape, dtype=x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return out


KERNELS = (Kernel("CenterCropPad", (18,), center_crop_pad),)
