"""Acosh: the inverse hyperbolic cosine, element-wise (NaN below 1).

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Acosh", (9, 22), np.arccosh)
