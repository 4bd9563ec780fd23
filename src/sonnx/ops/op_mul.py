"""Mul: element-wise product, A * B. The result keeps A's element type."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, in_first_type
from .base import Kernel

mul, mul_legacy = broadcast_versions(in_first_type(np.multiply), "mul", "mul_legacy")

KERNELS = (
    Kernel("Mul", (1, 6), mul_legacy),
    Kernel("Mul", (7, 13, 14), mul),
)
