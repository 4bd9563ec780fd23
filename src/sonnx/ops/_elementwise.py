"""What the element-wise kernels share: element-type checks, working precision, small kernel factories.

Floating-point formulas are evaluated in a *working precision* and rounded
once to the input's type at the end: float64 stays float64; float32 and the
narrower types (float16, bfloat16, float8) are computed in float32, which
holds every value of those types exactly. An element-wise kernel never
changes the element type ONNX defines for its output.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel

_ML_FLOATS = ("bfloat16", "float8", "float4")

Formula = Callable[..., np.ndarray]
BinaryUfunc = Callable[[np.ndarray, np.ndarray], np.ndarray]


def is_float(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is a floating-point type (NumPy's or one of the ml_dtypes types)."""
    return bool(np.issubdtype(dtype, np.floating)) or dtype.name.startswith(_ML_FLOATS)


def is_integer(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is a NumPy signed or unsigned integer type."""
    return bool(np.issubdtype(dtype, np.integer))


def require_float(x: np.ndarray, operator: str) -> None:
    if not is_float(x.dtype):
        raise ValueError(f"{operator} takes a floating-point tensor, got {x.dtype}")


def require_integer(x: np.ndarray, operator: str) -> None:
    if not is_integer(x.dtype):
        raise ValueError(f"{operator} takes an integer tensor, got {x.dtype}")


def require_bool(x: np.ndarray, operator: str) -> None:
    if x.dtype != np.bool_:
        raise ValueError(f"{operator} takes a bool tensor, got {x.dtype}")


def require_numeric(x: np.ndarray, operator: str) -> None:
    if not (is_float(x.dtype) or is_integer(x.dtype)):
        raise ValueError(f"{operator} takes a numeric tensor, got {x.dtype}")


def same_type(a: np.ndarray, b: np.ndarray, operator: str) -> None:
    if a.dtype != b.dtype:
        raise ValueError(f"{operator}'s inputs must have one element type, got {a.dtype} and {b.dtype}")


def working(x: np.ndarray) -> np.ndarray:
    """``x`` in its working precision: float64 for float64, float32 for every other floating type."""
    return x.astype(np.float64 if x.dtype == np.float64 else np.float32, copy=False)


def apply_float(operator: str, formula: Formula, x: np.ndarray, **params: Any) -> np.ndarray:
    """``formula(x, **params)`` in working precision, rounded to ``x``'s type (NaN/overflow are results, not errors)."""
    require_float(x, operator)
    with np.errstate(all="ignore"):
        y = formula(working(x), **params)
    return np.asarray(y).astype(x.dtype, copy=False)


def text(value: str | bytes) -> str:
    """A STRING attribute as ``str`` (the loader may hand over bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def float_unary_kernels(operator: str, since_versions: tuple[int, ...], formula: Formula) -> tuple[Kernel, ...]:
    """The kernel of an attribute-free floating-point function whose versions differ only in the types admitted."""

    def kernel(x: np.ndarray, **_attrs: Any) -> np.ndarray:
        return apply_float(operator, formula, x)

    kernel.__name__ = kernel.__qualname__ = operator.lower()
    kernel.__doc__ = f"{operator}, element-wise; the versions differ only in the element types they admit."
    return (Kernel(operator, since_versions, kernel),)


def logical_kernels(operator: str, ufunc: BinaryUfunc) -> tuple[Kernel, ...]:
    """And, Or, Xor: version 1 broadcasts B to A only when asked (``broadcast``, ``axis``); 7 like NumPy."""

    def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        require_bool(a, operator)
        require_bool(b, operator)
        return np.asarray(ufunc(a, b), dtype=np.bool_)

    def legacy(a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_: Any) -> np.ndarray:
        return combine(a, legacy_align(a, b, broadcast, axis))

    def modern(a: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
        return combine(a, b)

    legacy.__name__ = legacy.__qualname__ = f"{operator.lower()}_1"
    legacy.__doc__ = f"{operator}-1: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``."
    modern.__name__ = modern.__qualname__ = operator.lower()
    modern.__doc__ = f"{operator}-7: multidirectional (NumPy) broadcasting."
    return (Kernel(operator, (1,), legacy), Kernel(operator, (7,), modern))


def bitwise_kernels(operator: str, ufunc: BinaryUfunc) -> tuple[Kernel, ...]:
    """BitwiseAnd, BitwiseOr, BitwiseXor (one version, 18): two integer tensors of one type, broadcast."""

    def kernel(a: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
        require_integer(a, operator)
        same_type(a, b, operator)
        return np.asarray(ufunc(a, b)).astype(a.dtype, copy=False)

    kernel.__name__ = kernel.__qualname__ = operator.lower()
    kernel.__doc__ = f"{operator}: bit by bit on the two's-complement representation, NumPy broadcasting."
    return (Kernel(operator, (18,), kernel),)


def comparison_kernels(operator: str, ufunc: BinaryUfunc, since_versions: tuple[int, ...]) -> tuple[Kernel, ...]:
    """GreaterOrEqual, LessOrEqual: a bool tensor, NumPy broadcasting; versions differ in the types admitted."""

    def kernel(a: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
        same_type(a, b, operator)
        with np.errstate(invalid="ignore"):  # ml_dtypes warns when comparing NaN
            return np.asarray(ufunc(a, b), dtype=np.bool_)

    kernel.__name__ = kernel.__qualname__ = operator.lower()
    kernel.__doc__ = f"{operator}: element-wise comparison, NumPy broadcasting."
    return (Kernel(operator, since_versions, kernel),)
