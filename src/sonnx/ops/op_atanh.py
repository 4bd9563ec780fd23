"""Atanh: the inverse hyperbolic tangent, element-wise (+-inf at +-1, NaN beyond).

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Atanh", (9, 22), np.arctanh)
