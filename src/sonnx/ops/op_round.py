"""Round: the nearest integer, halves to the even neighbour (2.5 -> 2, -1.5 -> -2), element-wise.

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Round", (11, 22), np.round)
