"""Reciprocal: 1 / x, element-wise (IEEE 754: 1/0 = inf, 1/-0 = -inf).

Versions differ only in the element types they admit (and version 1's ignored ``consumed_inputs``).
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Reciprocal", (1, 6, 13), np.reciprocal)
