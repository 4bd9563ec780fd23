"""What the linear (de)quantization operators share.

* The **granularity** of a scale (and of its zero point, which has the same
  shape), decided by its shape: one element is per tensor; a 1-D tensor as long
  as axis ``axis`` of the data is per axis; with ``block_size`` B > 0 the scale
  has the data's rank, the data's extent on every axis but ``axis``, and
  ``ceil(D / B)`` elements on ``axis``, each covering B consecutive elements
  (the last block may be shorter). :func:`expand_parameter` turns any of the
  three into an array that broadcasts against the data.
* The **saturating conversion** of a real value to a quantized element type
  (:func:`quantize_values`): integers are rounded half to even and clipped to the
  type's range; float8/float6/float4 types round to nearest even, and with
  ``saturate`` a magnitude beyond the type's largest finite value (infinity
  included) becomes that value; without it, it becomes NaN, or infinity for
  the types that have one (E5M2). The float6/float4 types have neither, so
  they always saturate.

* The **version 10** of both operators (:func:`per_tensor_version`): the
  later kernel, for one scale and one zero point only.

* The **zero-point shift** of integer operands (:func:`shifted`, exact in
  int64) and the per-row / per-column parameters of the quantized matrix
  products (MatMulInteger, QLinearMatMul).

NaN quantized to an integer type is not defined by the operator texts; sonnx
maps it to the zero point (a zero quotient).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from .base import KernelFn, named
from .values import numpy_dtype

# float8 types with an encoding for NaN or infinity: ``saturate`` applies to them only.
SATURABLE_FLOATS = frozenset(
    np.dtype(t)
    for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz)
)
NARROW_FLOATS = SATURABLE_FLOATS | frozenset(
    np.dtype(t) for t in (ml_dtypes.float4_e2m1fn, ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn)
)
NARROW_INTS = frozenset(np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2))


def is_integer(dtype: np.dtype[Any]) -> bool:
    """Signed or unsigned integer, NumPy's own or a 2/4-bit ml_dtypes one."""
    return dtype.kind in "iu" or dtype in NARROW_INTS


def is_real_float(dtype: np.dtype[Any]) -> bool:
    """A float type arithmetic can be done in: float16/32/64 or bfloat16."""
    return dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16)


def integer_range(dtype: np.dtype[Any]) -> tuple[int, int]:
    """The smallest and largest value of an integer type (2/4-bit ones included)."""
    info = ml_dtypes.iinfo(dtype)
    return int(info.min), int(info.max)


def element_type(code: int, what: str) -> np.dtype[Any]:
    """The dtype of a ``TensorProto`` element type named by an attribute (``output_dtype``, ``precision``)."""
    try:
        return numpy_dtype(int(code))
    except Exception:
        raise ValueError(f"{what}={code} is not an element type with a NumPy counterpart") from None


def normalise_axis(axis: int, rank: int) -> int:
    """``axis`` in ``[-rank, rank - 1]`` as a non-negative axis."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} outside the rank {rank} of the input")
    return axis + rank if axis < 0 else axis


def expand_parameter(
    p: np.ndarray, x_shape: tuple[int, ...], axis: int, block_size: int, name: str, blocked: bool = True
) -> np.ndarray:
    """``p`` (a scale or zero point) as an array broadcasting against data of shape ``x_shape``.

    ``blocked`` says whether the operator version knows blocked quantization.
    """
    rank = len(x_shape)
    if block_size < 0:
        raise ValueError(f"block_size must not be negative, got {block_size}")
    if block_size == 0:
        if p.size == 1 and p.ndim <= 1:
            return p.reshape(())
        if p.ndim != 1:
            hint = " (blocked quantization needs block_size > 0)" if blocked else ""
            raise ValueError(f"{name} of shape {p.shape} is neither a scalar nor a 1-D per-axis tensor{hint}")
        ax = normalise_axis(axis, rank)
        if p.shape[0] != x_shape[ax]:
            raise ValueError(f"{name} has {p.shape[0]} elements; axis {axis} of the input has {x_shape[ax]}")
        shape = [1] * rank
        shape[ax] = p.shape[0]
        return p.reshape(shape)
    if not blocked:
        raise ValueError("block_size is not defined before version 21")
    ax = normalise_axis(axis, rank)
    if p.ndim != rank:
        raise ValueError(f"blocked {name} must have the input's rank {rank}, not shape {p.shape}")
    for i in range(rank):
        if i != ax and p.shape[i] != x_shape[i]:
            raise ValueError(f"blocked {name} has shape {p.shape}; it must match the input {x_shape} except on {ax}")
    want = -(-x_shape[ax] // block_size)
    if p.shape[ax] != want:
        raise ValueError(
            f"blocked {name} has {p.shape[ax]} blocks on axis {ax}; block_size {block_size} over "
            f"{x_shape[ax]} elements needs {want}"
        )
    return np.repeat(p, block_size, axis=ax)[(slice(None),) * ax + (slice(0, x_shape[ax]),)]


def check_zero_point(zp: np.ndarray, scale: np.ndarray, name: str) -> None:
    """The zero point must have the scale's shape (one element each for per-tensor is enough)."""
    if zp.shape != scale.shape and not (zp.size == 1 and scale.size == 1 and zp.ndim <= 1 and scale.ndim <= 1):
        raise ValueError(f"{name} has shape {zp.shape}, the scale {scale.shape}; they must be equal")


def to_quantized(v: np.ndarray, target: np.dtype[Any], saturate: bool) -> np.ndarray:
    """Real values converted to a float8/float6/float4 ``target``: nearest even, saturated on request."""
    if target in SATURABLE_FLOATS and saturate:
        top = float(ml_dtypes.finfo(target).max)
        v = np.clip(v, -top, top)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(v).astype(target)


def quantize_values(
    x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None, target: np.dtype[Any],
    precision: np.dtype[Any], saturate: bool,
) -> np.ndarray:
    """``saturate(round(x / scale) + zero_point)`` with the division in ``precision``.

    ``scale`` and ``zero_point`` already broadcast against ``x``.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        quotient = x.astype(precision) / scale.astype(precision)
        if is_integer(target):
            lo, hi = integer_range(target)
            q = np.rint(quotient).astype(np.float64)
            q[np.isnan(q)] = 0.0
            if zero_point is not None:
                q = q + zero_point.astype(np.float64)
            return np.asarray(np.clip(q, lo, hi)).astype(np.int64).astype(target)
        if target in NARROW_FLOATS:
            v = quotient
            if zero_point is not None:
                v = v + zero_point.astype(precision)
            return to_quantized(np.asarray(v), target, saturate)
    raise ValueError(f"{target} is not a quantized element type")


def shifted(x: np.ndarray, zero_point: np.ndarray | None) -> np.ndarray:
    """``x - zero_point`` computed exactly: int64 for integer data, float64 for float8 data."""
    exact = np.dtype(np.int64) if is_integer(x.dtype) else np.dtype(np.float64)
    out = x.astype(exact)
    if zero_point is not None:
        if zero_point.dtype != x.dtype:
            raise ValueError(f"a zero point of type {zero_point.dtype} for data of type {x.dtype}")
        out = out - zero_point.astype(exact)
    return out


def matmul_row_parameter(p: np.ndarray, a: np.ndarray, name: str) -> np.ndarray:
    """A per-row parameter of the left matmul operand ``a`` (a scale or zero point), shaped to broadcast.

    One element: per tensor. A 1-D tensor of ``M`` elements for ``a`` of shape
    ``[..., M, K]``: one value per row (shaped ``M x 1``). Otherwise it must
    already broadcast per row (``[D1, D2, M, 1]`` for ``a`` of shape ``[D1, D2, M, K]``).
    """
    if p.size == 1:
        return p.reshape(())
    if a.ndim >= 2 and p.ndim == 1 and p.shape[0] == a.shape[-2]:
        return p.reshape(-1, 1)
    if a.ndim >= 2 and p.ndim >= 2 and p.shape[-1] == 1:
        return p
    raise ValueError(f"{name} of shape {p.shape} is neither per tensor nor per row of an operand of shape {a.shape}")


def matmul_column_parameter(p: np.ndarray, b: np.ndarray, name: str) -> np.ndarray:
    """A per-column parameter of the right matmul operand ``b``: one element, ``N`` elements, or ``[..., 1, N]``."""
    if p.size == 1:
        return p.reshape(())
    if b.ndim >= 2 and p.ndim == 1 and p.shape[0] == b.shape[-1]:
        return p
    if b.ndim >= 2 and p.ndim >= 2 and p.shape[-2] == 1:
        return p
    raise ValueError(f"{name} of shape {p.shape} is neither per tensor nor per column of an operand of shape {b.shape}")


def per_tensor_version(kernel: KernelFn, name: str, refusal: str) -> KernelFn:
    """Version 10 of QuantizeLinear or DequantizeLinear: ``kernel`` (version 13 on) for a per-tensor scale only.

    Version 10 has no attributes and quantizes per tensor: a scale or zero
    point of more than one element is refused with ``refusal``.
    """

    def version_10(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None = None, **_attrs: Any) -> np.ndarray:
        if scale.size != 1 or (zero_point is not None and zero_point.size != 1):
            raise ValueError(refusal)
        return kernel(x, scale, zero_point)

    return named(version_10, name, "Version 10: per-tensor only (scalar scale and zero point).")
