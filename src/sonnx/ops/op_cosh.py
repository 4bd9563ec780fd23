"""Cosh: the hyperbolic cosine (e^x + e^-x) / 2, element-wise.

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Cosh", (9, 22), np.cosh)
