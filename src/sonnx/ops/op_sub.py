"""Sub: element-wise difference, A - B. The result keeps A's element type."""

from __future__ import annotations

import numpy as np

from ._elementwise import broadcast_versions, in_first_type
from .base import Kernel

sub, sub_legacy = broadcast_versions(in_first_type(np.subtract), "sub", "sub_legacy")

KERNELS = (
    Kernel("Sub", (1, 6), sub_legacy),
    Kernel("Sub", (7, 13, 14), sub),
)
