"""StringConcat: element-wise concatenation ``x + y`` of two string tensors, with NumPy broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def string_concat(x: np.ndarray, y: np.ndarray, **_attrs: Any) -> np.ndarray:
    """One version. Strings are object arrays of ``str``, whose ``+`` concatenates."""
    return np.asarray(np.add(x.astype(object), y.astype(object)), dtype=object)


KERNELS = (Kernel("StringConcat", (20,), string_concat),)
