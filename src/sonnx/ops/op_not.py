"""Not: logical negation of a bool tensor, element-wise."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_bool
from .base import Kernel


def not_(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """The only version (1)."""
    require_bool(x, "Not")
    return np.logical_not(x)


KERNELS = (Kernel("Not", (1,), not_),)
