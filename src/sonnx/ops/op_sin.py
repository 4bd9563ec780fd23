"""Sin: the sine of an angle in radians, element-wise.

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Sin", (7, 22), np.sin)
