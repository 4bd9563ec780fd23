"""BitShift: X shifted by Y bits, left (X * 2^Y, high bits dropped) or right, element-wise, NumPy broadcasting.

Version 11 admits unsigned integer types only. Version 28 adds the signed
types: a right shift is arithmetic (the sign bit is copied into the vacated
bits), a left shift works on the two's-complement bits (bits moved past the
sign bit are lost). Version 28 also defines a shift amount that is negative
or not below the bit width: the result is what the fill alone gives, -1 for a
right shift of a negative X and 0 otherwise. Version 11 leaves that case
undefined; sonnx gives it the same (only possible) answer for unsigned types,
0. The result has X's type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._elementwise import require_integer, same_type, text
from .base import Kernel


def _shift(x: np.ndarray, y: np.ndarray, direction: str | bytes | None) -> np.ndarray:
    require_integer(x, "BitShift")
    same_type(x, y, "BitShift")
    if direction is None:
        raise ValueError("BitShift needs the direction attribute (LEFT or RIGHT)")
    way = text(direction)
    if way not in ("LEFT", "RIGHT"):
        raise ValueError(f"BitShift direction must be LEFT or RIGHT, got {way!r}")
    x, y = np.broadcast_arrays(x, y)
    bits = x.dtype.itemsize * 8
    inside = (y >= 0) & (y < bits)
    unsigned = np.dtype(f"uint{bits}")
    amount = np.where(inside, y, 0).astype(unsigned)
    if way == "LEFT":
        # on the unsigned view, so that the bits shifted out of a signed value wrap instead of overflowing
        moved = np.left_shift(x.astype(unsigned), amount).astype(x.dtype)
        return np.where(inside, moved, np.zeros((), dtype=x.dtype))
    moved = np.right_shift(x, amount.astype(x.dtype))
    fill = -(x < 0).astype(x.dtype)  # -1 where a negative value is shifted right out of range, else 0
    return np.where(inside, moved, fill)


def bit_shift_11(x: np.ndarray, y: np.ndarray, direction: str | bytes | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 11: unsigned integer types only."""
    if not np.issubdtype(x.dtype, np.unsignedinteger):
        raise ValueError(f"BitShift-11 takes unsigned integer tensors, got {x.dtype}")
    return _shift(x, y, direction)


def bit_shift(x: np.ndarray, y: np.ndarray, direction: str | bytes | None = None, **_attrs: Any) -> np.ndarray:
    """Opset 28: signed types too; out-of-range shift amounts defined."""
    return _shift(x, y, direction)


KERNELS = (
    Kernel("BitShift", (11,), bit_shift_11),
    Kernel("BitShift", (28,), bit_shift),
)
