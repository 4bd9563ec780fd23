"""Sign: 1 for x > 0, -1 for x < 0, 0 for x == 0 (NaN stays NaN), element-wise, in x's own type.

Version 13 admits bfloat16 in addition to version 9's integer and floating types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_numeric
from .base import Kernel


def sign(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """Unsigned integers give 0 or 1; integer results are exact."""
    require_numeric(x, "Sign")
    return np.asarray(np.sign(x)).astype(x.dtype, copy=False)


KERNELS = (Kernel("Sign", (9, 13), sign),)
