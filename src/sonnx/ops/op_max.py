"""Max: element-wise maximum of a variable number of tensors."""

from __future__ import annotations

import numpy as np

from ._elementwise import one_shape, variadic
from .base import Kernel

max_ = variadic("Max", np.maximum, "max_")
max__same_shape = one_shape("Max", max_, "max__same_shape")

KERNELS = (
    Kernel("Max", (1, 6), max__same_shape),
    Kernel("Max", (8, 12, 13), max_),
)
