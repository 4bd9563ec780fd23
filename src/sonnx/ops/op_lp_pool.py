"""LpPool: the Lp norm of every pooling window, ``Y = (sum over the window of |X|^p) ^ (1/p)``.

Padding (explicit or automatic) and the elements a ceil-mode window reaches
past the padded input count as zeros. Window geometry as for AveragePool and
MaxPool (``_windows``): in ceil mode a window starting in the end padding is dropped.

Versions: 1 (``p`` a float, default 2.0), 2 and 11 (``p`` an integer), 18
(``ceil_mode``, ``dilations``), 22 (bfloat16). An attribute a version lacks
takes the value that reproduces that version (floor mode, no dilation), so
one function serves every version. ``p`` must be positive.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._window_taps import window_sums
from ._windows import accumulation_dtype, pooled_axes, window_geometry
from .base import Kernel


def lp_pool(
    x: np.ndarray, *, kernel_shape: Sequence[int], ceil_mode: int = 0, p: float = 2, **attrs: Any
) -> np.ndarray:
    """LpPool-1, -2, -11, -18, -22 (the window attributes as ``_windows.window_geometry`` reads them)."""
    pooled_axes(x, kernel_shape)
    if not p > 0:
        raise ValueError(f"p must be positive, not {p}")
    geo = window_geometry(x.shape[2:], kernel_shape, ceil_mode, **attrs)
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    total = window_sums(np.abs(x.astype(acc, copy=False)) ** acc.type(p), geo)
    return np.asarray(total ** acc.type(1.0 / p)).astype(x.dtype, copy=False)


KERNELS = (Kernel("LpPool", (1, 2, 11, 18, 22), lp_pool),)
