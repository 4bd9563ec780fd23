"""Softsign: x / (1 + |x|), element-wise; +-inf give +-1 (the limit), not inf / inf.

Versions 1 and 22 differ only in the element types they admit (22 adds bfloat16).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels


def _softsign(w: np.ndarray) -> np.ndarray:
    return np.where(np.isinf(w), np.sign(w), w / (1 + np.abs(w)))


KERNELS = float_unary_kernels("Softsign", (1, 22), _softsign)
