"""CumSum: y[..., j, ...] = sum of x[..., i, ...] over i <= j along ``axis`` (i < j with ``exclusive``).

``reverse`` sums from the end of the axis instead. Versions 11 and 14 differ
only in the element types they admit (14 adds float16 and bfloat16). See
:mod:`sonnx.ops._cumulative`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._cumulative import cumulative
from .base import Kernel


def cum_sum(x: np.ndarray, axis: np.ndarray, exclusive: int = 0, reverse: int = 0, **_attrs: Any) -> np.ndarray:
    """Versions 11 and 14."""
    return cumulative(x, axis, exclusive, reverse, product=False, operator="CumSum")


KERNELS = (Kernel("CumSum", (11, 14), cum_sum),)
