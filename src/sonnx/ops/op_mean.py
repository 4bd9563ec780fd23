"""Mean: the element-wise arithmetic mean (x_1 + ... + x_n) / n of a variable number of tensors.

Versions 1 and 6 need inputs of one shape; 8 and 13 broadcast them like NumPy
(13 admits bfloat16). The sum is taken in working precision (float32 for
float16/bfloat16) and rounded to the inputs' type once, after the division.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ._elementwise import one_shape, require_float, same_type, working
from .base import Kernel


def mean(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 8 on: the inputs broadcast together."""
    if not inputs:
        raise ValueError("Mean needs at least one input")
    first = inputs[0]
    require_float(first, "Mean")
    for x in inputs[1:]:
        same_type(first, x, "Mean")
    with np.errstate(over="ignore", invalid="ignore"):
        total = reduce(np.add, (working(x) for x in inputs))
        return np.asarray(total / len(inputs)).astype(first.dtype, copy=False)


mean_same_shape = one_shape("Mean", mean, "mean_same_shape")

KERNELS = (
    Kernel("Mean", (1, 6), mean_same_shape),
    Kernel("Mean", (8, 13), mean),
)
