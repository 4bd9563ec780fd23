"""Atan: the arctangent, in radians in (-pi/2, pi/2), element-wise.

Versions differ only in the element types they admit.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import float_unary_kernels

KERNELS = float_unary_kernels("Atan", (7, 22), np.arctan)
