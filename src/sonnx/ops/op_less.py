"""Less: the element-wise comparison A < B, a boolean tensor."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, comparison
from .base import Kernel

less, less_legacy = broadcast_versions(comparison("Less", np.less), "less", "less_legacy")

KERNELS = (
    Kernel("Less", (1,), less_legacy),
    Kernel("Less", (7, 9, 13), less),
)
