"""Cast: convert every element to the element type named by ``to``.

The element types NumPy represents natively are supported: booleans, the
signed and unsigned integers of 8 to 64 bits, float16/32/64 and strings.
bfloat16, the float8/float4 families and the 2/4-bit integers have no NumPy
type; a cast from or to them is refused rather than approximated.

Conversions follow NumPy's ``astype``: float to integer truncates toward
zero (out-of-range values and NaN have no defined ONNX result); to bool,
nonzero is True. Strings parse as decimal numbers (``"INF"``/``"NaN"``
accepted, case-insensitively; only integer literals cast to an integer type);
numbers become NumPy's shortest round-tripping decimal text (which uses an
exponent for very large or small magnitudes), with ``NaN``, ``INF`` and
``-INF`` for the special values.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np
from onnx import TensorProto

from .base import Kernel

_NUMPY_TYPES: dict[int, Any] = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
    TensorProto.INT8: np.int8,
    TensorProto.INT16: np.int16,
    TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64,
    TensorProto.UINT8: np.uint8,
    TensorProto.UINT16: np.uint16,
    TensorProto.UINT32: np.uint32,
    TensorProto.UINT64: np.uint64,
    TensorProto.BOOL: np.bool_,
    TensorProto.STRING: np.object_,
}
_SUPPORTED = {np.dtype(t) for t in _NUMPY_TYPES.values()}


def _target(to: Union[int, str]) -> Any:
    if isinstance(to, str):  # Cast-1 names the type ("FLOAT")
        try:
            code = TensorProto.DataType.Value(to.upper())
        except ValueError:
            raise ValueError(f"Cast: unknown element type name {to!r}") from None
    else:
        code = int(to)
    if code not in _NUMPY_TYPES:
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() else str(code)
        raise ValueError(f"Cast to {name} is not supported (no NumPy element type)")
    return _NUMPY_TYPES[code]


def _is_text(x: np.ndarray) -> bool:
    return x.dtype == np.object_ or x.dtype.kind in "US"


def cast(x: np.ndarray, to: Union[int, str], **_attrs: Any) -> np.ndarray:
    """All versions: versions add element types; ``saturate`` and ``round_mode`` concern only float8/float4."""
    target = _target(to)
    if not _is_text(x) and x.dtype not in _SUPPORTED:
        raise ValueError(f"Cast from {x.dtype} is not supported")
    if target is np.object_:
        if _is_text(x):
            return x.astype(np.object_)
        text = x.astype(np.str_)
        if x.dtype.kind == "f":  # the ONNX literals for the special values
            text = np.where(np.isnan(x), "NaN", text)
            text = np.where(np.isposinf(x), "INF", text)
            text = np.where(np.isneginf(x), "-INF", text)
        return text.astype(np.object_)
    if _is_text(x):
        try:
            text = x.astype(np.str_)
            if np.issubdtype(target, np.integer):  # integer literals only ("2.5" to int is undefined)
                return text.astype(np.int64).astype(target)
            return text.astype(np.float64).astype(target)
        except ValueError as exc:
            raise ValueError(f"Cast: a string is not a number ({exc})") from None
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(target)


KERNELS = (Kernel("Cast", (1, 6, 9, 13, 19, 21, 23, 24, 25, 28), cast),)
