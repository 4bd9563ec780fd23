"""Mish: x * tanh(softplus(x)) = x * tanh(ln(1 + exp(x))), element-wise; -inf gives its limit 0.

Versions 18 and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels


def _mish(w: np.ndarray) -> np.ndarray:
    return np.where(np.isneginf(w), -0.0, w * np.tanh(np.logaddexp(0, w)))


KERNELS = float_unary_kernels("Mish", (18, 22), _mish)
