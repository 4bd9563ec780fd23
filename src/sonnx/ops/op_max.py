"""Max: element-wise maximum of a variable number of tensors."""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from .base import Kernel


def max_(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opset 8 on: the inputs broadcast together (multidirectional); the result keeps the first's type."""
    if not inputs:
        raise ValueError("Max needs at least one input")
    return np.asarray(reduce(np.maximum, inputs)).astype(inputs[0].dtype, copy=False)


def max_same_shape(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 6: no broadcasting, every input has the same shape."""
    if not inputs:
        raise ValueError("Max needs at least one input")
    shapes = {x.shape for x in inputs}
    if len(shapes) != 1:
        raise ValueError(f"Max before opset 8 needs inputs of one shape, got {sorted(shapes)}")
    return max_(*inputs)


KERNELS = (
    Kernel("Max", (1, 6), max_same_shape),
    Kernel("Max", (8, 12, 13), max_),
)
