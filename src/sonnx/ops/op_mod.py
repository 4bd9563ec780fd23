"""Mod: the remainder of A / B, element-wise, NumPy broadcasting; the result has the inputs' type.

``fmod=0`` (default): A - floor(A / B) * B, the sign of B (integer mod, like
Python's %). ``fmod=1``: A - trunc(A / B) * B, the sign of A (C's fmod).

Versions 10 and 13 (13 admits bfloat16) allow ``fmod=0`` for integer types
only: a floating-point input must come with ``fmod=1``, and is refused
otherwise. Version 28 defines ``fmod=0`` for floating types as well, with the
IEEE 754 special cases: an infinite A or a zero B gives NaN; a zero A gives a
zero with B's sign; a finite nonzero A and an infinite B give A when they have
one sign and B otherwise. With ``fmod=1`` an infinite B gives a finite A.

An integer division by zero has no defined result in any version and is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import apply_float, is_float, require_numeric, same_type
from .base import Kernel


def _remainder(a: np.ndarray, b: np.ndarray, fmod: int) -> np.ndarray:
    require_numeric(a, "Mod")
    same_type(a, b, "Mod")
    if fmod not in (0, 1):
        raise ValueError(f"Mod's fmod must be 0 or 1, got {fmod}")
    if is_float(a.dtype):
        # NumPy's remainder and fmod have exactly the IEEE special cases listed above
        ufunc = np.fmod if fmod else np.remainder
        return apply_float("Mod", lambda w: ufunc(w, b.astype(w.dtype, copy=False)), a)
    if np.any(b == 0):
        raise ValueError("integer Mod by zero")
    return np.asarray(np.fmod(a, b) if fmod else np.remainder(a, b)).astype(a.dtype, copy=False)


def mod_10(a: np.ndarray, b: np.ndarray, fmod: int = 0, **_attrs: Any) -> np.ndarray:
    """Opsets 10 and 13: floating-point inputs require ``fmod=1``."""
    if is_float(a.dtype) and fmod != 1:
        raise ValueError(f"Mod before opset 28 requires fmod=1 for floating-point inputs ({a.dtype})")
    return _remainder(a, b, fmod)


def mod(a: np.ndarray, b: np.ndarray, fmod: int = 0, **_attrs: Any) -> np.ndarray:
    """Opset 28: ``fmod=0`` defined for floating-point inputs too."""
    return _remainder(a, b, fmod)


KERNELS = (
    Kernel("Mod", (10, 13), mod_10),
    Kernel("Mod", (28,), mod),
)
