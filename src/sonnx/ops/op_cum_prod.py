"""CumProd: y[..., j, ...] = product of x[..., i, ...] over i <= j along ``axis`` (i < j with ``exclusive``).

``reverse`` multiplies from the end of the axis instead; an empty exclusive
product is 1. One version (26). See :mod:`sonnx.ops._cumulative`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._cumulative import cumulative
from .base import Kernel


def cum_prod(x: np.ndarray, axis: np.ndarray, exclusive: int = 0, reverse: int = 0, **_attrs: Any) -> np.ndarray:
    """Version 26."""
    return cumulative(x, axis, exclusive, reverse, product=True, operator="CumProd")


KERNELS = (Kernel("CumProd", (26,), cum_prod),)
