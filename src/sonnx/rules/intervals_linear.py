"""Transfer functions of the interval domain, operators that sum, normalize or move elements (spec/operators.rst 5.1).

Conv, MatMul and Gemm are bounded per output by the sum over their terms of
weight times argument range, when one factor is a constant (its values give
each term's weight and the number of terms); the rounding of any summation
order is covered by Higham's bound ``gamma_n * sum |w| |x|`` with ``n`` the
number of terms plus one, added on both sides before the outward rounding. A
product of two computed tensors is unknown. Operators that move or select
elements keep their input's range.
"""

from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto

from ..model.graph import Operation
from .intervals import FLOAT_TYPES, Range, float_max, float_result, hull, is_float, top
from .intervals_ops import ELEMENTWISE, Args, Outcome, Transfer, attr, same_values

INT64_MAX = 2**63 - 1


def _unit(elem: int) -> float:
    return float(np.finfo(FLOAT_TYPES[elem]).eps) / 2


def _tiny(elem: int) -> float:
    return float(np.finfo(FLOAT_TYPES[elem]).smallest_subnormal)


def dot_bound(x: Range, w: np.ndarray, elem: int, extra: Range | None = None) -> Range:
    """The range of ``sum_k w[k, j] * x_k (+ extra)`` over every column ``j``, each ``x_k`` in ``x``.

    ``w`` has one row per term. The rounding of any order of the sum is
    bounded by gamma_(n+1) times the sum of the magnitudes of the terms.
    """
    if not is_float(elem) or x.nan or w.size == 0 or w.ndim != 2:
        return top(elem)
    with np.errstate(all="ignore"):
        w64 = np.asarray(w, np.float64)
        if not np.isfinite(w64).all():
            return top(elem)
        pos, negw = np.where(w64 > 0, w64, 0.0), np.where(w64 < 0, w64, 0.0)
        lo_parts = [p for p in (pos.sum(0) * x.lo if x.lo != 0 else None, negw.sum(0) * x.hi if x.hi != 0 else None)
                    if p is not None]
        hi_parts = [p for p in (pos.sum(0) * x.hi if x.hi != 0 else None, negw.sum(0) * x.lo if x.lo != 0 else None)
                    if p is not None]
        lo = np.sum(lo_parts, axis=0) if lo_parts else np.zeros(w64.shape[1])
        hi = np.sum(hi_parts, axis=0) if hi_parts else np.zeros(w64.shape[1])
        mag = np.abs(w64).sum(0) * max(abs(x.lo), abs(x.hi))
    n = w64.shape[0] + 1
    u = _unit(elem)
    gamma = n * u / (1 - n * u) if n * u < 0.5 else math.inf
    if not np.all(mag * (1 + gamma) < float_max(elem)):  # a partial sum may overflow whatever the final bound
        return Range(elem, -math.inf, math.inf, nan=True)
    slack = gamma * mag + n * _tiny(elem)
    with np.errstate(all="ignore"):
        lo, hi = lo - slack, hi + slack
    if np.isnan(lo).any() or np.isnan(hi).any():
        return top(elem)
    r = float_result(elem, [float(lo.min()), float(hi.max())], False)
    if extra is not None:
        add = ELEMENTWISE["Add"]
        r = add(Operation("Add", "", "", (), ()), [r, extra]).outputs[0]
    return r


def _const(r: Range | None) -> np.ndarray | None:
    return None if r is None or r.value is None else np.asarray(r.value)


def conv(op: Operation, args: Args) -> Outcome:
    """Conv with constant weights W[M, C/group, k...] and bias: per output channel m, sum over W[m] of
    w * x, the argument range holding 0 for the padded positions; plus B[m]."""
    x = args[0] if args else None
    w = args[1] if len(args) > 1 else None
    b = args[2] if len(args) > 2 else None
    wv = _const(w)
    if x is None or wv is None or wv.ndim < 3:
        return Outcome([top(x.elem if x else TensorProto.FLOAT)])
    xz = Range(x.elem, min(x.lo, 0.0), max(x.hi, 0.0), nan=x.nan)
    terms = wv.reshape(wv.shape[0], -1).T
    parts = []
    bias = None if b is None or b.value is None else np.asarray(b.value, np.float64).reshape(-1)
    for m in range(wv.shape[0]):  # a computed bias: its range for every channel
        extra = b if bias is None else Range(x.elem, float(bias[m]), float(bias[m]))
        parts.append(dot_bound(xz, terms[:, m:m + 1], x.elem, extra))
    return Outcome([hull(x.elem, parts)])


def _matmul_terms(a: Range, b: Range) -> tuple[Range, np.ndarray] | None:
    """The computed factor and the constant one laid out as terms x columns, or None when neither is constant."""
    bv, av = _const(b), _const(a)
    if bv is not None:
        k = bv.shape[0] if bv.ndim == 1 else bv.shape[-2]
        cols = bv.reshape(k, 1) if bv.ndim == 1 else np.moveaxis(bv.reshape(-1, k, bv.shape[-1]), 1, 0).reshape(k, -1)
        return a, cols
    if av is not None:
        k = av.shape[-1]
        return b, av.reshape(-1, k).T
    return None


def matmul(op: Operation, args: Args) -> Outcome:
    """MatMul with one constant factor: each output is a dot product with a column (or row) of that constant."""
    a, b = [*list(args), None, None][:2]
    if a is None or b is None:
        return Outcome([top(TensorProto.FLOAT)])
    laid = _matmul_terms(a, b)
    if laid is None:
        return Outcome([top(a.elem)])
    return Outcome([dot_bound(laid[0], laid[1], a.elem)])


def gemm(op: Operation, args: Args) -> Outcome:
    """Gemm: alpha * A' B' + beta * C with A' or B' constant (transposed as ``transA``/``transB`` ask)."""
    a, b = [*list(args), None, None][:2]
    c = args[2] if len(args) > 2 else None
    if a is None or b is None:
        return Outcome([top(TensorProto.FLOAT)])
    av, bv = _const(a), _const(b)
    a2 = a if av is None else Range(a.elem, a.lo, a.hi, value=av.T if attr(op, "transA", 0) else av)
    b2 = b if bv is None else Range(b.elem, b.lo, b.hi, value=bv.T if attr(op, "transB", 0) else bv)
    laid = _matmul_terms(a2, b2)
    if laid is None:
        return Outcome([top(a.elem)])
    alpha, beta = float(attr(op, "alpha", 1.0)), float(attr(op, "beta", 1.0))  # type: ignore[arg-type]
    r = dot_bound(laid[0], laid[1] * alpha, a.elem)
    if c is not None:
        mul, add = ELEMENTWISE["Mul"], ELEMENTWISE["Add"]
        scaled = mul(op, [c, Range(c.elem, beta, beta)]).outputs[0]
        r = add(op, [r, scaled]).outputs[0]
    return Outcome([r])


def batch_norm(op: Operation, args: Args) -> Outcome:
    """BatchNormalization (inference) with constant scale, B, mean and var: per channel the affine map
    x * f + (B - f * mean), f = scale / sqrt(var + epsilon), widened by 16 units of rounding of the largest
    intermediate magnitude (the kernel's own order of its five operations)."""
    if len(args) < 5 or args[0] is None or any(_const(a) is None for a in args[1:5]):
        return Outcome([top(args[0].elem if args and args[0] else TensorProto.FLOAT)])
    x = args[0]
    if not is_float(x.elem) or not x.finite:
        return Outcome([top(x.elem)])
    scale, bias, mean, var = (np.asarray(_const(a), np.float64).reshape(-1) for a in args[1:5])
    eps = float(attr(op, "epsilon", float(np.float32(1e-5))))  # type: ignore[arg-type]
    with np.errstate(all="ignore"):
        f = scale / np.sqrt(var + eps)
        shift = bias - f * mean
        ends = np.stack([f * float(x.lo), f * float(x.hi)])
        lo, hi = ends.min(0) + shift, ends.max(0) + shift
        big = (np.abs(f) + 1) * (max(abs(float(x.lo)), abs(float(x.hi))) + np.abs(mean)) + np.abs(bias)
        margin = 16 * _unit(x.elem) * big + 16 * _tiny(x.elem)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all() and np.all(2 * big < float_max(x.elem))):
        return Outcome([top(x.elem)])
    return Outcome([float_result(x.elem, [float((lo - margin).min()), float((hi + margin).max())], False)])


def average(op: Operation, args: Args) -> Outcome:
    """ReduceMean, GlobalAveragePool, AveragePool: a mean lies within its terms' range; the rounding of the sum
    is bounded relative to the largest magnitude by the number of terms, which must be a known count."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem) or x.shape is None:
        return Outcome([top(x.elem if x else TensorProto.FLOAT)])
    n = max(1, math.prod(x.shape))
    u = _unit(x.elem)
    if n * u >= 0.5:
        return Outcome([top(x.elem)])
    slack = (n + 1) * u / (1 - (n + 1) * u) * max(abs(x.lo), abs(x.hi))
    if not (n + 1) * max(abs(x.lo), abs(x.hi)) < float_max(x.elem):  # the sum before the division may overflow
        return Outcome([Range(x.elem, -math.inf, math.inf, nan=True)])
    return Outcome([float_result(x.elem, [x.lo - slack, x.hi + slack], x.nan)])


def softmax(op: Operation, args: Args) -> Outcome:
    """Softmax of finite values lies in [0, 1]; an infinite input may give NaN (inf - inf)."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem):
        return Outcome([top(x.elem if x else TensorProto.FLOAT)])
    return Outcome([float_result(x.elem, [0.0, 1.0], not x.finite, 4)])


def hull_from(first: int) -> Transfer:
    def fn(op: Operation, args: Args) -> Outcome:
        parts = [a for a in args[first:] if a is not None]
        return Outcome([hull(parts[0].elem, parts)] if parts else [top(TensorProto.FLOAT)])

    return fn


def pad(op: Operation, args: Args) -> Outcome:
    """Pad: the input's values and the pad value (0 when omitted; edge and reflect repeat the input's)."""
    x = args[0] if args else None
    if x is None:
        return Outcome([top(TensorProto.FLOAT)])
    v = args[2] if len(args) > 2 and args[2] is not None else Range(x.elem, 0, 0)
    return Outcome([hull(x.elem, [x, v])])


def constant(op: Operation, args: Args) -> Outcome:
    """Constant: the exact range of its value (``value`` or a scalar/list attribute)."""
    from .intervals import of_value

    for name, elem in (("value_float", TensorProto.FLOAT), ("value_floats", TensorProto.FLOAT),
                       ("value_int", TensorProto.INT64), ("value_ints", TensorProto.INT64)):
        if op.attribute(name) is not None:
            dtype = np.float32 if elem == TensorProto.FLOAT else np.int64
            return Outcome([of_value(elem, np.asarray(attr(op, name, 0), dtype))])
    a = op.attribute("value")
    if a is None or not hasattr(a.value, "read"):
        return Outcome([top(TensorProto.FLOAT)])
    return Outcome([of_value(a.value.data_type, a.value.read())])


def int64_out(hi: int = INT64_MAX, lo: int = 0) -> Transfer:
    def fn(op: Operation, args: Args) -> Outcome:
        return Outcome([Range(TensorProto.INT64, lo, hi)])

    return fn


def hard_sigmoid(op: Operation, args: Args) -> Outcome:
    x = args[0] if args else None
    return Outcome([float_result(x.elem, [0.0, 1.0], x.nan)] if x and is_float(x.elem) else [top(TensorProto.FLOAT)])


def hard_swish(op: Operation, args: Args) -> Outcome:
    """HardSwish x * max(0, min(1, x / 6 + 1 / 2)): at least -0.375 (at x = -1.5), at most max(x, 0)."""
    x = args[0] if args else None
    if x is None or not is_float(x.elem):
        return Outcome([top(TensorProto.FLOAT)])
    return Outcome([float_result(x.elem, [-0.375, max(float(x.hi), 0.0)], x.nan, 4)])


TRANSFERS: dict[str, Transfer] = {
    **ELEMENTWISE,
    "Conv": conv,
    "MatMul": matmul,
    "Gemm": gemm,
    "BatchNormalization": batch_norm,
    "ReduceMean": average,
    "GlobalAveragePool": average,
    "Softmax": softmax,
    "Concat": hull_from(0),
    "Where": hull_from(1),
    "Pad": pad,
    "Constant": constant,
    "Shape": int64_out(),
    "Size": int64_out(),
    "ArgMax": int64_out(),
    "HardSigmoid": hard_sigmoid,
    "HardSwish": hard_swish,
    "MaxPool": same_values,
    "GlobalMaxPool": same_values,
    "ReduceMax": same_values,
    "ReduceMin": same_values,
    "Reshape": same_values,
    "Flatten": same_values,
    "Transpose": same_values,
    "Squeeze": same_values,
    "Unsqueeze": same_values,
    "Slice": same_values,
    "Gather": same_values,
    "GatherElements": same_values,
    "Expand": same_values,
    "Tile": same_values,
    "Split": same_values,
    "Dropout": same_values,
}
"""The transfer function of each operator the domain bounds; any other operator's outputs are unknown."""
