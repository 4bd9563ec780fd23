"""GlobalLpPool: the Lp norm over all spatial positions of each channel, ``(sum |X|^p) ^ (1/p)``.

The output has shape ``N x C x 1 x ... x 1``. Versions: 1 (``p`` a float,
default 2.0), 2 (``p`` an integer), 22 (bfloat16); they compute alike. ``p``
must be positive.
"""

from __future__ import annotations

import numpy as np

from ._windows import accumulation_dtype, check_spatial_input
from .base import Kernel


def global_lp_pool(x: np.ndarray, *, p: float = 2, **_attrs: object) -> np.ndarray:
    """GlobalLpPool-1, -2, -22."""
    nsp = check_spatial_input(x)
    if not p > 0:
        raise ValueError(f"p must be positive, not {p}")
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    power = np.abs(x.astype(acc, copy=False)) ** acc.type(p)
    total = power.sum(axis=tuple(range(2, 2 + nsp)), keepdims=True)
    return np.asarray(total ** acc.type(1.0 / p)).astype(x.dtype, copy=False)


KERNELS = (Kernel("GlobalLpPool", (1, 2, 22), global_lp_pool),)
