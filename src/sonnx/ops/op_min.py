"""Min: element-wise minimum of a variable number of tensors."""

from __future__ import annotations

import numpy as np

from ._elementwise import one_shape, variadic
from .base import Kernel

min_ = variadic("Min", np.minimum, "min_")
min__same_shape = one_shape("Min", min_, "min__same_shape")

KERNELS = (
    Kernel("Min", (1, 6), min__same_shape),
    Kernel("Min", (8, 12, 13), min_),
)
