"""Cast: convert every element to the element type named by ``to``.

The conversion rules (rounding, out-of-range values, float8 saturation,
FLOAT8E8M0 rounding modes, text) are those of :mod:`sonnx.ops._convert`.
Versions differ in the element types they admit (strings from 9, bfloat16
from 13, float8 from 19, 4-bit integers from 21, FLOAT4E2M1 from 23,
FLOAT8E8M0 from 24, 2-bit integers from 25, float6 from 28), in ``saturate``
(from 19: float8 targets clamp out-of-range values instead of producing
infinity or NaN) and in ``round_mode`` (from 24, FLOAT8E8M0 only).
Version 1 names the target type as a string (``"FLOAT"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from ..base.errors import SonnxError
from ._convert import convert
from .base import Kernel
from .values import numpy_dtype


def target_dtype(to: int | str, operator: str) -> np.dtype[Any]:
    """The NumPy dtype of the ONNX element type ``to`` (a ``TensorProto.DataType`` number or name)."""
    if isinstance(to, str):  # Cast-1 names the type ("FLOAT")
        try:
            code = TensorProto.DataType.Value(to.upper())
        except ValueError:
            raise ValueError(f"{operator}: unknown element type name {to!r}") from None
    else:
        code = int(to)
    try:
        return numpy_dtype(code)
    except SonnxError:
        raise ValueError(f"{operator}: element type {code} is not a tensor element type") from None


def cast(x: np.ndarray, to: int | str, saturate: int = 1, round_mode: str = "up", **_attrs: Any) -> np.ndarray:
    """All versions (the attributes a version lacks keep their later defaults, which change nothing there)."""
    return convert(x, target_dtype(to, "Cast"), saturate=bool(saturate), round_mode=round_mode)


KERNELS = (Kernel("Cast", (1, 6, 9, 13, 19, 21, 23, 24, 25, 28), cast),)
