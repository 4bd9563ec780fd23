"""Asin: the arcsine, in radians in [-pi/2, pi/2], element-wise (NaN outside [-1, 1]).

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Asin", (7, 22), np.arcsin)
