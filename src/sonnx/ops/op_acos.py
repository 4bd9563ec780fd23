"""Acos: the arccosine, in radians in [0, pi], element-wise (NaN outside [-1, 1]).

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Acos", (7, 22), np.arccos)
