"""BitwiseXor: bitwise xor of two integer tensors of one type (two's complement), NumPy broadcasting."""

from __future__ import annotations

import numpy as np

from ._elementwise import bitwise_kernels

KERNELS = bitwise_kernels("BitwiseXor", np.bitwise_xor)
