"""Erf: the Gauss error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, element-wise.

Computed in float64 (``_erf``, within one unit in the last place) and rounded
to x's type; for float32, a cheaper float64 evaluation is used wherever it
provably rounds to the same float32 (``_erf.erf_float32``). Version 9 also
admits integer types (the result, in (-1, 1) or +-1, is cast back to the
integer type like any C conversion: it truncates); version 13 admits floating
types only, bfloat16 among them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_numeric
from ._erf import erf as erf_float64
from ._erf import erf_float32
from .base import Kernel


def erf(x: np.ndarray, **_attrs: Any) -> np.ndarray:
    """The same function for versions 9 and 13 (they differ in the element types they admit)."""
    require_numeric(x, "Erf")
    if x.dtype == np.float32:
        return erf_float32(x)
    return erf_float64(x.astype(np.float64)).astype(x.dtype)


KERNELS = (Kernel("Erf", (9, 13), erf),)
