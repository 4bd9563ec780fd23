"""Ceil: the smallest integer not below x, element-wise (NaN, infinities and -0 unchanged).

Versions differ only in the element types they admit (and version 1's ignored ``consumed_inputs``).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Ceil", (1, 6, 13), np.ceil)
