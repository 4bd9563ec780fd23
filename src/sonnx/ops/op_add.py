"""Add: element-wise sum, A + B. The result keeps A's element type."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, in_first_type
from .base import Kernel

add, add_legacy = broadcast_versions(in_first_type(np.add), "add", "add_legacy")

KERNELS = (
    Kernel("Add", (1, 6), add_legacy),
    Kernel("Add", (7, 13, 14), add),
)
