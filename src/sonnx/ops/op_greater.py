"""Greater: the element-wise comparison A > B, a boolean tensor."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, comparison
from .base import Kernel

greater, greater_legacy = broadcast_versions(comparison("Greater", np.greater), "greater", "greater_legacy")

KERNELS = (
    Kernel("Greater", (1,), greater_legacy),
    Kernel("Greater", (7, 9, 13), greater),
)
