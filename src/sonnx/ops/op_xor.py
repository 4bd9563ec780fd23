"""Xor: logical xor of two bool tensors, element-wise.

Version 1 broadcasts B to A only when the ``broadcast`` attribute is set (B's
dimensions aligned at ``axis``, or with A's trailing ones); version 7 broadcasts
both inputs like NumPy.
"""

from __future__ import annotations

import numpy as np

from ._elementwise import logical_kernels

KERNELS = logical_kernels("Xor", np.logical_xor)
