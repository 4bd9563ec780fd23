"""AveragePool: the mean of every pooling window.

Versions 1, 7, 10, 11, 19 and 22 differ in the attributes they define
(``count_include_pad`` from 7, ``ceil_mode`` from 10, ``dilations`` from 19);
an attribute a version lacks takes the value that reproduces that version's
behaviour (padding not counted, floor mode, no dilation), so one function
serves every version. The divisor of a window is the number of its elements
inside the input, or, with ``count_include_pad``, inside the input or the
explicit/automatic padding; elements reached only because of ``ceil_mode``
(past the end padding) are never counted.

Interpretation: only the version-22 text says that in ceil mode a window that
would start in the end padding is dropped; the earlier texts give the ceil
formula alone. The rule is applied to every version (as onnx's reference
implementation and PyTorch, whose semantics the text cites, do); the texts
disagree only on such all-padding windows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._window_taps import window_sums
from ._windows import accumulation_dtype, pooled_axes, window_counts, window_geometry
from .base import Kernel


def average_pool(
    x: np.ndarray, *, kernel_shape: Sequence[int], ceil_mode: int = 0, count_include_pad: int = 0, **attrs: Any
) -> np.ndarray:
    """AveragePool-1, -7, -10, -11, -19, -22 (the window attributes as ``_windows.window_geometry`` reads them)."""
    pooled_axes(x, kernel_shape)
    geo = window_geometry(x.shape[2:], kernel_shape, ceil_mode, **attrs)
    counts = window_counts(geo, x.shape[2:], bool(count_include_pad))
    if np.any(counts == 0):
        raise ValueError("a pooling window covers no counted element (its average is undefined)")
    acc = accumulation_dtype(x.dtype)
    total = window_sums(x.astype(acc, copy=False), geo)
    total /= counts.astype(acc)
    return total.astype(x.dtype, copy=False)


KERNELS = (Kernel("AveragePool", (1, 7, 10, 11, 19, 22), average_pool),)
