"""CastLike: Cast to the element type of a second tensor (whose values are not used).

The conversion is Cast's (:mod:`sonnx.ops._convert`). Versions differ as
Cast's do: element types grow, ``saturate`` exists from 19 (float8 targets)
and ``round_mode`` from 24 (FLOAT8E8M0 targets).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._convert import convert
from .base import Kernel


def cast_like(
    x: np.ndarray, target_type: np.ndarray, saturate: int = 1, round_mode: str = "up", **_attrs: Any
) -> np.ndarray:
    """All versions; version 15 has neither attribute (their defaults change nothing for its types)."""
    return convert(x, target_type.dtype, saturate=bool(saturate), round_mode=round_mode)


KERNELS = (Kernel("CastLike", (15, 19, 21, 23, 24, 25), cast_like),)
