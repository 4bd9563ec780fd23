"""GreaterOrEqual: the comparison A >= B, a bool tensor, with NumPy broadcasting.

Version 16 admits bfloat16 besides version 12's numeric types; NaN compares false.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import comparison_kernels

KERNELS = comparison_kernels("GreaterOrEqual", np.greater_equal, (12, 16))
