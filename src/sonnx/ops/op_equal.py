"""Equal: the element-wise comparison A == B, a boolean tensor."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, comparison
from .base import Kernel

equal, equal_legacy = broadcast_versions(comparison("Equal", np.equal), "equal", "equal_legacy")

KERNELS = (
    Kernel("Equal", (1,), equal_legacy),
    Kernel("Equal", (7, 11, 13, 19), equal),
)
