"""Sum: element-wise sum of a variable number of tensors."""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from .base import Kernel


def sum_(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 8 on: the inputs broadcast together (multidirectional); the result keeps the first's type."""
    if not inputs:
        raise ValueError("Sum needs at least one input")
    return np.asarray(reduce(np.add, inputs)).astype(inputs[0].dtype, copy=False)


def sum_same_shape(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: no broadcasting, every input has the same shape."""
    if not inputs:
        raise ValueError("Sum needs at least one input")
    shapes = {x.shape for x in inputs}
    if len(shapes) != 1:
        raise ValueError(f"Sum before opset 8 needs inputs of one shape, got {sorted(shapes)}")
    return sum_(*inputs)


KERNELS = (
    Kernel("Sum", (1, 6), sum_same_shape),
    Kernel("Sum", (8, 13), sum_),
)
