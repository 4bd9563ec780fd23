"""The soundness of the interval domain (spec/operators.rst 5.1): every transfer function's output range holds
what sonnx's NumPy kernel computes from arguments drawn inside the argument ranges, rounding included."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto

from sonnx.model.graph import make_operation
from sonnx.ops import REGISTRY
from sonnx.ops.base import attributes_with_defaults, call_kernel
from sonnx.rules.intervals import Range, down, of_value, up
from sonnx.rules.intervals_linear import TRANSFERS

pytestmark = pytest.mark.rule("OP-ERROR-DIV-ZERO", "OP-ERROR-LOG", "OP-ERROR-SQRT", "OP-ERROR-POW",
                              "OP-ERROR-INT-OVERFLOW", "OP-RANGE-FLOAT")

FLOATS = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.FLOAT16: np.float16}
INTS = {TensorProto.INT8: np.int8, TensorProto.INT32: np.int32, TensorProto.INT64: np.int64}

UNARY_FLOAT = ["Abs", "Neg", "Relu", "LeakyRelu", "Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Erf", "Floor", "Ceil",
               "Identity", "Softmax", "HardSigmoid", "HardSwish", "Flatten", "Transpose"]
BINARY_FLOAT = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Concat", "Less", "Equal"]
BINARY_INT = ["Add", "Sub", "Mul", "Div", "Max", "Min"]
UNARY_INT = ["Abs", "Neg", "Relu", "Identity"]

MAGNITUDE = st.sampled_from([1.0, 10.0, 90.0, 1e4, 6e4, 1e30, 1e300])


def kernel(operator: str, args: list[np.ndarray | None], **attrs: Any) -> np.ndarray:
    op = make_operation(operator, [f"a{k}" for k in range(len(args))], ["y"], **attrs)
    k, schema = REGISTRY.lookup("", operator, 17)
    with np.errstate(all="ignore"):
        out = call_kernel(k, op, args, attributes_with_defaults(op, schema))[0]
    return np.asarray(out)


def holds(r: Range, y: np.ndarray) -> None:
    """Every element of ``y`` lies in ``r`` (a NaN only where ``r`` allows NaN)."""
    y64 = np.asarray(y, np.float64) if y.dtype.kind == "f" else y.astype(object)
    for v in y64.reshape(-1):
        if isinstance(v, float) and math.isnan(v):
            assert r.nan, f"NaN outside {r.show()}"
        else:
            assert r.lo <= v <= r.hi, f"{v!r} outside {r.show()}"


@st.composite
def float_arg(draw: st.DrawFn, elem: int) -> tuple[Range, np.ndarray]:
    dtype = FLOATS[elem]
    m = min(draw(MAGNITUDE), float(np.finfo(dtype).max))
    a = float(dtype(draw(st.floats(-m, m))))
    b = float(dtype(draw(st.floats(-m, m))))
    lo, hi = min(a, b), max(a, b)
    inner = draw(st.lists(st.floats(lo, hi), min_size=1, max_size=6))
    values = np.clip(np.asarray([lo, hi, *inner], np.float64), lo, hi).astype(dtype)
    return Range(elem, lo, hi), values


@st.composite
def int_arg(draw: st.DrawFn, elem: int) -> tuple[Range, np.ndarray]:
    info = np.iinfo(INTS[elem])
    a, b = draw(st.integers(int(info.min), int(info.max))), draw(st.integers(int(info.min), int(info.max)))
    lo, hi = min(a, b), max(a, b)
    inner = draw(st.lists(st.integers(lo, hi), min_size=1, max_size=6))
    return Range(elem, lo, hi), np.asarray([lo, hi, *inner], INTS[elem])


@given(st.data())
def test_unary_float_transfers_hold_the_kernels_results(data: st.DataObject) -> None:
    operator = data.draw(st.sampled_from(UNARY_FLOAT))
    elem = data.draw(st.sampled_from(sorted(FLOATS)))
    r, x = data.draw(float_arg(elem))
    out = TRANSFERS[operator](make_operation(operator, ["x"], ["y"]), [r]).outputs[0]
    holds(out, kernel(operator, [x]))


@given(st.data())
def test_binary_float_transfers_hold_the_kernels_results(data: st.DataObject) -> None:
    operator = data.draw(st.sampled_from(BINARY_FLOAT))
    elem = data.draw(st.sampled_from(sorted(FLOATS)))
    (ra, xa), (rb, xb) = data.draw(float_arg(elem)), data.draw(float_arg(elem))
    if operator == "Pow" and data.draw(st.booleans()):  # a constant exponent: the other path of Pow's bound
        rb = of_value(elem, xb)
    xa, xb = np.broadcast_arrays(xa[:, None], xb[None, :])
    attrs = {"axis": 0} if operator == "Concat" else {}
    out = TRANSFERS[operator](make_operation(operator, ["a", "b"], ["y"], **attrs), [ra, rb]).outputs[0]
    holds(out, kernel(operator, [np.ascontiguousarray(xa), np.ascontiguousarray(xb)], **attrs))


@given(st.data())
def test_integer_transfers_hold_the_kernels_results_or_report_the_wrap(data: st.DataObject) -> None:
    operator = data.draw(st.sampled_from(BINARY_INT + UNARY_INT))
    elem = data.draw(st.sampled_from(sorted(INTS)))
    args = [data.draw(int_arg(elem)) for _ in range(1 if operator in UNARY_INT else 2)]
    if operator == "Div":
        r, x = args[1]
        x = np.where(x == 0, 1, x).astype(x.dtype)  # a zero divisor is OP-ERROR-DIV-ZERO's; 1 joins the range
        args[1] = (Range(elem, r.lo, max(int(r.hi), 1)), x)
    ranges = [a[0] for a in args]
    arrays = [a[1] for a in args]
    if len(arrays) == 2:
        arrays = [np.ascontiguousarray(v) for v in np.broadcast_arrays(arrays[0][:, None], arrays[1][None, :])]
    got = TRANSFERS[operator](make_operation(operator, ["a", "b"][: len(ranges)], ["y"]), ranges)
    y = kernel(operator, list(arrays))
    holds(got.outputs[0], y)
    exact = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b, "Neg": lambda a: -a,
             "Abs": abs}.get(operator)
    if exact is not None:
        wide = np.frompyfunc(exact, len(arrays), 1)(*(v.astype(object) for v in arrays))
        info = np.iinfo(INTS[elem])
        if any(v < info.min or v > info.max for v in np.asarray(wide).reshape(-1)):
            assert got.wraps is not None, "an exact result outside the type was not reported"


@given(st.data())
def test_linear_transfers_hold_the_kernels_results(data: st.DataObject) -> None:
    elem = data.draw(st.sampled_from([TensorProto.FLOAT, TensorProto.DOUBLE]))
    dtype = FLOATS[elem]
    r, _ = data.draw(float_arg(elem))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scale = min(data.draw(MAGNITUDE), 1e30)
    span = (float(r.lo), float(r.hi))
    operator = data.draw(st.sampled_from(["MatMul", "Gemm", "Conv", "BatchNormalization", "ReduceMean"]))
    if operator in ("MatMul", "Gemm"):
        x = rng.uniform(*span, (3, 4)).astype(dtype)
        w = (rng.standard_normal((4, 5)) * scale).astype(dtype)
        args = [x, w] + ([(rng.standard_normal(5)).astype(dtype)] if operator == "Gemm" else [])
    elif operator == "Conv":
        x = rng.uniform(*span, (1, 2, 4, 4)).astype(dtype)
        args = [x, (rng.standard_normal((3, 2, 2, 2)) * scale).astype(dtype), rng.standard_normal(3).astype(dtype)]
    elif operator == "BatchNormalization":
        x = rng.uniform(*span, (2, 3, 2)).astype(dtype)
        args = [x, *(rng.standard_normal(3).astype(dtype) for _ in range(3)), rng.uniform(0.1, 2, 3).astype(dtype)]
    else:
        x = rng.uniform(*span, (3, 5)).astype(dtype)
        args = [x]
    x_range = Range(elem, r.lo, r.hi, shape=tuple(x.shape))
    ranges = [x_range, *(of_value(elem, a) for a in args[1:])]
    if operator == "Conv" and data.draw(st.booleans()):  # a bias that is computed: its range only, no value
        args[2] = (args[2] + dtype(1.0)).astype(dtype)
        computed = of_value(elem, args[2])
        ranges[2] = Range(elem, computed.lo, computed.hi)
    attrs = {"pads": [1, 1, 1, 1]} if operator == "Conv" else {}
    out = TRANSFERS[operator](make_operation(operator, [f"a{k}" for k in range(len(args))], ["y"], **attrs), ranges)
    holds(out.outputs[0], kernel(operator, list(args), **attrs))


def test_outward_rounding_moves_every_bound_outward() -> None:
    third = 1 / 3
    assert down(third, TensorProto.FLOAT) < third < up(third, TensorProto.FLOAT)
    assert np.float32(down(third, TensorProto.FLOAT)) == down(third, TensorProto.FLOAT)
    assert up(3.5e38, TensorProto.FLOAT) == math.inf and down(-3.5e38, TensorProto.FLOAT) == -math.inf


@pytest.mark.parametrize("operator", ["Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Erf", "Pow"])
@pytest.mark.parametrize("elem", sorted(FLOATS))
def test_functions_of_libm_hold_the_kernel_at_every_point_of_a_dense_sweep(operator: str, elem: int) -> None:
    """NumPy's float32 exp, tanh and log are not correctly rounded: a point range is where a bound that is not
    rounded outward and widened shows first."""
    dtype = FLOATS[elem]
    x = np.random.default_rng(elem).uniform(-12, 12, 300).astype(dtype)
    if operator in ("Log", "Sqrt", "Pow"):
        x = np.abs(x) + dtype(0.5)
    args = [x, np.full_like(x, 1.7)] if operator == "Pow" else [x]
    y = kernel(operator, args)
    op = make_operation(operator, ["a", "b"][: len(args)], ["y"])
    for k, v in enumerate(x):
        ranges = [Range(elem, float(v), float(v))] + ([Range(elem, float(dtype(1.7)), float(dtype(1.7)))]
                                                       if operator == "Pow" else [])
        holds(TRANSFERS[operator](op, ranges).outputs[0], y[k:k + 1])


def test_a_long_dot_product_at_its_extreme_holds_the_float32_accumulation() -> None:
    """Every term at its bound: the kernel's float32 sum of 4096 products may exceed the exact bound by many
    units in the last place; the gamma_n widening must hold it."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        w = rng.uniform(0.1, 1.0, (4096, 1)).astype(np.float32)
        hi = float(np.float32(rng.uniform(0.5, 3.0)))
        x = np.full((1, 4096), hi, np.float32)
        out = TRANSFERS["MatMul"](make_operation("MatMul", ["a", "b"], ["y"]),
                                  [Range(TensorProto.FLOAT, hi, hi), of_value(TensorProto.FLOAT, w)]).outputs[0]
        holds(out, kernel("MatMul", [x, w]))
        sequential = np.cumsum(x[0] * w[:, 0], dtype=np.float32)[-1:]  # the worst order: one term after another
        holds(out, sequential)


def test_a_mean_whose_sum_overflows_may_be_infinite() -> None:
    """Found by the fuzz profile: float32 values up to 4.3e37 have a finite mean, but their sum overflows first."""
    x = np.asarray([[0.0, 4.2833295e37, 4.2833295e37, 4.2833295e37, 4.2833295e37, 4.2833295e37, 4.2833295e37,
                     4.2833295e37, 4.2833295e37, 4.2833295e37]], np.float32)
    r = Range(TensorProto.FLOAT, 0.0, float(x.max()), shape=x.shape)
    out = TRANSFERS["ReduceMean"](make_operation("ReduceMean", ["x"], ["y"]), [r]).outputs[0]
    holds(out, kernel("ReduceMean", [x]))
