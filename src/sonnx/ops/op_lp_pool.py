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

from typing import Sequence

import numpy as np

from ._windows import accumulation_dtype, check_spatial_input, pad_spatial, resolve_geometry
from .base import Kernel


def lp_pool(
    x: np.ndarray,
    *,
    kernel_shape: Sequence[int],
    auto_pad: str = "NOTSET",
    ceil_mode: int = 0,
    dilations: Sequence[int] | None = None,
    p: float = 2,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    **_attrs: object,
) -> np.ndarray:
    """LpPool-1, -2, -11, -18, -22."""
    nsp = check_spatial_input(x)
    if kernel_shape is None or len(kernel_shape) != nsp:
        raise ValueError(f"kernel_shape must give {nsp} sizes")
    if not p > 0:
        raise ValueError(f"p must be positive, not {p}")
    geo = resolve_geometry(x.shape[2:], kernel_shape, strides, dilations, pads, auto_pad, bool(ceil_mode))
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    power = np.abs(x.astype(acc, copy=False)) ** acc.type(p)
    after = tuple(a + o for a, o in zip(geo.pad_end, geo.overhang, strict=True))
    padded = pad_spatial(power, geo.pad_begin, after, 0)
    lead = (slice(None), slice(None))
    total = np.zeros(x.shape[:2] + geo.out, dtype=acc)
    for off in geo.offsets():
        total += padded[lead + geo.window_slices(off)]
    return np.asarray(total ** acc.type(1.0 / p)).astype(x.dtype, copy=False)


KERNELS = (Kernel("LpPool", (1, 2, 11, 18, 22), lp_pool),)
