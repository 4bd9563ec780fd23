"""What the element-wise kernels share: element-type checks, working precision, small kernel factories.

The factories build the kernel functions of operator families whose
members differ only in the NumPy function they apply (the comparisons, the
variadic Max/Min/Sum, the binary arithmetic with pre-opset-7 broadcasting);
an operator module names its function and registers the kernels itself.

Floating-point formulas are evaluated in a *working precision* and rounded
once to the input's type at the end: float64 stays float64; float32 and the
narrower types (float16, bfloat16, float8) are computed in float32, which
holds every value of those types exactly. An element-wise kernel never
changes the element type ONNX defines for its output.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Any

import numpy as np

from ._broadcast import legacy_align
from .base import Kernel, KernelFn, named

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

    doc = f"{operator}, element-wise; the versions differ only in the element types they admit."
    return (Kernel(operator, since_versions, named(kernel, operator.lower(), doc)),)


def logical_kernels(operator: str, ufunc: BinaryUfunc) -> tuple[Kernel, ...]:
    """And, Or, Xor: version 1 broadcasts B to A only when asked (``broadcast``, ``axis``); 7 like NumPy."""

    def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        require_bool(a, operator)
        require_bool(b, operator)
        return np.asarray(ufunc(a, b), dtype=np.bool_)

    modern, legacy = broadcast_versions(combine, operator.lower(), f"{operator.lower()}_1")
    return (Kernel(operator, (1,), legacy), Kernel(operator, (7,), modern))


def bitwise_kernels(operator: str, ufunc: BinaryUfunc) -> tuple[Kernel, ...]:
    """BitwiseAnd, BitwiseOr, BitwiseXor (one version, 18): two integer tensors of one type, broadcast."""

    def kernel(a: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
        require_integer(a, operator)
        same_type(a, b, operator)
        return np.asarray(ufunc(a, b)).astype(a.dtype, copy=False)

    doc = f"{operator}: bit by bit on the two's-complement representation, NumPy broadcasting."
    return (Kernel(operator, (18,), named(kernel, operator.lower(), doc)),)


def comparison_kernels(operator: str, ufunc: BinaryUfunc, since_versions: tuple[int, ...]) -> tuple[Kernel, ...]:
    """GreaterOrEqual, LessOrEqual: a bool tensor, NumPy broadcasting; versions differ in the types admitted."""
    compare = comparison(operator, ufunc)

    def kernel(a: np.ndarray, b: np.ndarray, **_: Any) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # ml_dtypes warns when comparing NaN
            return compare(a, b)

    named(kernel, operator.lower(), f"{operator}: element-wise comparison, NumPy broadcasting.")
    return (Kernel(operator, since_versions, kernel),)


def comparison(operator: str, ufunc: BinaryUfunc) -> BinaryUfunc:
    """Equal, Greater, Less...: ``ufunc(a, b)`` as a bool tensor, for two inputs of one element type."""

    def compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        same_type(a, b, operator)
        return np.asarray(ufunc(a, b), dtype=np.bool_)

    return compare


def in_first_type(ufunc: BinaryUfunc) -> BinaryUfunc:
    """Add, Sub, Mul: ``ufunc(a, b)`` with A's element type."""

    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return ufunc(a, b).astype(a.dtype, copy=False)

    return apply


def broadcast_versions(binary: BinaryUfunc, name: str, legacy_name: str) -> tuple[KernelFn, KernelFn]:
    """The two kernels of a binary operator: from opset 7, and before it.

    From opset 7 the inputs broadcast like NumPy (multidirectional); before,
    B is broadcast to A only when ``broadcast`` is set, its dimensions aligned
    at ``axis`` (``_broadcast.legacy_align``). Both apply ``binary`` to the result.
    """

    def modern(a: np.ndarray, b: np.ndarray, **_attrs: Any) -> np.ndarray:
        return binary(a, b)

    def legacy(a: np.ndarray, b: np.ndarray, broadcast: int = 0, axis: int | None = None, **_attrs: Any) -> np.ndarray:
        return binary(a, legacy_align(a, b, broadcast, axis))

    named(modern, name, "Opset 7 on: multidirectional (NumPy) broadcasting.")
    named(legacy, legacy_name, "Before opset 7: B broadcast to A only when ``broadcast`` is set, aligned at ``axis``.")
    return modern, legacy


def variadic(operator: str, ufunc: BinaryUfunc, name: str) -> KernelFn:
    """Max, Min, Sum from opset 8: the inputs broadcast together and folded with ``ufunc``, in the first's type."""

    def kernel(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
        if not inputs:
            raise ValueError(f"{operator} needs at least one input")
        return np.asarray(reduce(ufunc, inputs)).astype(inputs[0].dtype, copy=False)

    return named(kernel, name, "Opset 8 on: the inputs broadcast together (multidirectional); the result keeps the "
                  "first's type.")


def one_shape(operator: str, kernel: KernelFn, name: str) -> KernelFn:
    """The opsets 1 and 6 form of a variadic kernel (Max, Min, Sum, Mean): no broadcasting, one shape for all."""

    def same_shape(*inputs: np.ndarray, **_attrs: Any) -> np.ndarray:
        shapes = {x.shape for x in inputs}
        if len(shapes) > 1:
            raise ValueError(f"{operator} before opset 8 needs inputs of one shape, got {sorted(shapes)}")
        return kernel(*inputs)

    return named(same_shape, name, "Opsets 1 and 6: no broadcasting, every input has the same shape.")
