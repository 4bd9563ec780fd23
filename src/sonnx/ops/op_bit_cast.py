"""BitCast: reinterpret each element's bits as the element type ``to`` (same bit width, same shape).

Widths: bool 8 bits (one byte, holding 0 or 1), the 2/4-bit types 2/4, every
other type its storage size. A reinterpretation is the same on any host byte
order, since source and target have the same width. A byte other than 0 or 1
is not a bool, so reinterpreting one as BOOL is refused. Strings are not
allowed. One version (26).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ._convert import is_text, sub_byte_int
from .base import Kernel
from .op_cast import target_dtype

_FLOAT4 = np.dtype(ml_dtypes.float4_e2m1fn)
_FLOAT6 = frozenset(np.dtype(t) for t in (ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn))


def _bits(dtype: np.dtype[Any]) -> int:
    small = sub_byte_int(dtype)
    if small is not None:
        return small[0]
    if dtype == _FLOAT4:
        return 4
    if dtype in _FLOAT6:
        return 6
    return 8 * dtype.itemsize


def _code(x: np.ndarray, bits: int) -> np.ndarray:
    """The raw ``bits``-bit codes (uint8) of a sub-byte array (ml_dtypes keeps them in the low bits of a byte)."""
    return x.copy(order="C").view(np.uint8) & np.uint8(2**bits - 1)


def bit_cast(x: np.ndarray, to: int, **_attrs: Any) -> np.ndarray:
    """Version 26."""
    target = target_dtype(to, "BitCast")
    if is_text(x.dtype) or is_text(target):
        raise ValueError("BitCast does not take strings")
    bits = _bits(x.dtype)
    if bits != _bits(target):
        raise ValueError(f"BitCast from {x.dtype} ({bits} bits) to {target} ({_bits(target)} bits): widths differ")
    if bits < 8:
        code = _code(x, bits)
        small = sub_byte_int(target)
        if small is not None and small[1]:  # signed: the top bit is the sign
            return np.where(code >= 2 ** (bits - 1), code.astype(np.int8) - 2**bits, code).astype(target)
        if small is not None:
            return code.astype(target)
        return code.view(target)
    raw = x.copy(order="C")  # a view needs C-contiguous data (and keeps a 0-d shape, unlike ascontiguousarray)
    if target == np.bool_:
        as_bytes = raw.view(np.uint8)
        if np.any(as_bytes > 1):
            raise ValueError("BitCast to BOOL: a byte other than 0 or 1 is not a boolean")
        return as_bytes.astype(np.bool_)
    return raw.view(target)


KERNELS = (Kernel("BitCast", (26,), bit_cast),)
