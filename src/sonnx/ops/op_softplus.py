"""Softplus: ln(1 + exp(x)), element-wise, computed without overflow (x for large x).

Versions 1 and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels


def _softplus(w: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, w)


KERNELS = float_unary_kernels("Softplus", (1, 22), _softplus)
