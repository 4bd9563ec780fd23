"""The element-wise kernels (catalog_elementwise): version differences, refusals, edge cases, exact dtypes.

ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest

from sonnx.ops import _erf
from sonnx.ops.base import KernelRegistry
from sonnx.ops.catalog_elementwise import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), BF16]


def _fn(operator: str, opset: int) -> Any:
    return REGISTRY.lookup("", operator, opset)[0].fn


def _latest(operator: str) -> int:
    schemas = onnx.defs.get_all_schemas_with_history()
    return max(s.since_version for s in schemas if s.name == operator and s.domain == "")


def _f64(*v: float) -> np.ndarray:
    return np.array(v, dtype=np.float64)


# ------------------------------------------------------------------------------------------------ erf


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


def test_erf_is_within_one_ulp_of_math_erf_everywhere() -> None:
    rng = np.random.default_rng(13)
    x = np.concatenate(
        [
            np.linspace(-7, 7, 40001),
            rng.normal(0, 1.5, 40000),
            rng.uniform(1.9, 2.1, 5000),  # around the switch from the series to the continued fraction
            rng.uniform(5.9, 6.1, 2000),  # around saturation
            10.0 ** rng.uniform(-320, 0, 5000) * rng.choice([-1.0, 1.0], 5000),  # tiny, subnormal included
            _f64(2.0, np.nextafter(2.0, 0), 6.0, np.nextafter(6.0, 0), 5e-324, -5e-324, 1e-300),
        ]
    )
    want = np.array([math.erf(v) for v in x.tolist()])
    got = _erf.erf(x)
    assert got.dtype == np.float64
    ulps = _ulps(got, want)
    assert ulps.max() <= 1.0, (ulps.max(), x[np.argmax(ulps)])
    assert (ulps == 0).mean() > 0.9  # mostly the correctly rounded value itself


def test_erf_special_values_and_oddness() -> None:
    got = _erf.erf(_f64(0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0))
    np.testing.assert_array_equal(got[[0, 1, 2, 3, 5, 6]], [0.0, -0.0, 1.0, -1.0, 1.0, -1.0])
    assert np.signbit(got[1]) and not np.signbit(got[0])
    assert np.isnan(got[4])
    x = np.linspace(0, 6, 1001)
    np.testing.assert_array_equal(_erf.erf(-x), -_erf.erf(x))
    assert _erf.erf(np.zeros((0, 3))).shape == (0, 3)


def test_erf_constants_are_the_exact_values_rounded() -> None:
    with localcontext() as ctx:
        ctx.prec = 50

        # pi by Machin's formula, in 50-digit decimal arithmetic
        def arctan_inverse(n: int) -> Decimal:
            total, term, k, sign = Decimal(0), Decimal(1) / n, 1, 1
            while term > Decimal(10) ** -60:
                total += sign * term / k
                term /= n * n
                k += 2
                sign = -sign
            return total

        pi = 16 * arctan_inverse(5) - 4 * arctan_inverse(239)
        two_over_sqrt_pi = 2 / pi.sqrt()
        hi, lo = _erf.TWO_OVER_SQRT_PI
        assert hi == float(two_over_sqrt_pi)
        assert lo == float(two_over_sqrt_pi - Decimal(hi))
        assert _erf.ONE_OVER_SQRT_PI == float(1 / pi.sqrt())
    # the series coefficients are exact rationals
    assert _erf._COEFFICIENTS[3] == Fraction(-1, 6 * 7)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_erf_kernel_keeps_the_float_type(dtype: np.dtype[Any]) -> None:
    x = np.array([-1.5, 0.0, 0.5, 3.0], dtype=dtype)
    out = _fn("Erf", 13)(x)
    assert out.dtype == dtype
    want = np.array([math.erf(float(v)) for v in x.astype(np.float64)]).astype(dtype)
    np.testing.assert_array_equal(out, want)


def test_erf_9_on_integers_truncates_into_the_integer_type() -> None:
    x = np.array([-7, -1, 0, 1, 5, 6, 100], dtype=np.int32)
    out = _fn("Erf", 9)(x)
    assert out.dtype == np.int32
    # erf(5) = 0.99999999999846 truncates to 0; from 6 on erf rounds to 1.0 in float64
    np.testing.assert_array_equal(out, [-1, 0, 0, 0, 0, 1, 1])


# --------------------------------------------------------------------------- unary floating functions

UNARY = {
    "Acos": np.arccos,
    "Acosh": np.arccosh,
    "Asin": np.arcsin,
    "Asinh": np.arcsinh,
    "Atan": np.arctan,
    "Atanh": np.arctanh,
    "Cos": np.cos,
    "Cosh": np.cosh,
    "Sin": np.sin,
    "Sinh": np.sinh,
    "Tan": np.tan,
    "Ceil": np.ceil,
    "Floor": np.floor,
    "Round": np.round,
    "Reciprocal": np.reciprocal,
}


@pytest.mark.parametrize("operator", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_unary_functions_keep_every_float_type(operator: str, dtype: np.dtype[Any]) -> None:
    x = np.array([-2.5, -0.75, 0.0, 0.5, 1.5, 2.0], dtype=dtype)
    with np.errstate(all="ignore"):
        out = _fn(operator, _latest(operator))(x)
        want = UNARY[operator](x.astype(np.float64)).astype(dtype)
    assert out.dtype == dtype and out.shape == x.shape
    rtol = 1e-2 if dtype.itemsize == 2 else 1e-6
    np.testing.assert_allclose(out.astype(np.float64), want.astype(np.float64), rtol=rtol)


@pytest.mark.parametrize("operator", sorted(UNARY))
def test_unary_functions_refuse_integers_and_accept_empty_tensors(operator: str) -> None:
    fn = _fn(operator, _latest(operator))
    with pytest.raises(ValueError, match="floating-point"):
        fn(np.array([1, 2], dtype=np.int64))
    empty = fn(np.zeros((2, 0), dtype=np.float32))
    assert empty.shape == (2, 0) and empty.dtype == np.float32


def test_rounding_halves_to_even_and_keeps_signed_zero() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.25], dtype=np.float32)
    out = _fn("Round", 22)(x)
    np.testing.assert_array_equal(out, [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, -0.0])
    assert np.signbit(out[3]) and np.signbit(out[6])
    assert np.signbit(_fn("Ceil", 13)(np.array([-0.5], dtype=np.float32))[0])
    np.testing.assert_array_equal(_fn("Floor", 1)(np.array([-0.5, np.inf], dtype=np.float64)), [-1.0, np.inf])


def test_sign_keeps_integer_types() -> None:
    out = _fn("Sign", 13)(np.array([-5, 0, 7], dtype=np.int8))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [-1, 0, 1])
    out = _fn("Sign", 9)(np.array([0, 2**64 - 1], dtype=np.uint64))
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(out, [0, 1])
    out = _fn("Sign", 13)(np.array([-np.inf, -0.0, np.nan], dtype=BF16))
    assert out.dtype == BF16
    assert out[0] == -1 and out[1] == 0 and np.isnan(out[2].astype(np.float32))
    with pytest.raises(ValueError, match="numeric"):
        _fn("Sign", 13)(np.array([True]))


def test_is_inf_and_is_nan() -> None:
    x = np.array([-np.inf, np.inf, np.nan, 1.0, -0.0], dtype=np.float32)
    np.testing.assert_array_equal(_fn("IsInf", 10)(x), [True, True, False, False, False])
    np.testing.assert_array_equal(_fn("IsInf", 10)(x, detect_negative=0), [False, True, False, False, False])
    np.testing.assert_array_equal(_fn("IsInf", 20)(x, detect_positive=0), [True, False, False, False, False])
    np.testing.assert_array_equal(_fn("IsInf", 20)(x, detect_positive=0, detect_negative=0), [False] * 5)
    np.testing.assert_array_equal(_fn("IsInf", 20)(x.astype(BF16)), [True, True, False, False, False])
    # float8e4m3fn has no infinity: the largest finite values are not infinite
    f8 = np.array([448.0, -448.0, np.nan], dtype=ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(_fn("IsInf", 20)(f8), [False, False, False])
    for version in (9, 13, 20):
        out = _fn("IsNaN", version)(x.astype(np.float16))
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, [False, False, True, False, False])
    with pytest.raises(ValueError, match="floating-point"):
        _fn("IsNaN", 20)(np.array([1], dtype=np.int32))


# ------------------------------------------------------------------------------------- logic, bitwise


@pytest.mark.parametrize("operator,ufunc", [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)])
def test_logical_1_broadcasts_only_when_asked_and_7_like_numpy(operator: str, ufunc: Any) -> None:
    a = np.array([[[True, False, True, False]] * 3] * 2)
    a[1, 2, 1] = True
    b = np.array([True, False, True])
    out = _fn(operator, 1)(a, b, broadcast=1, axis=1)
    np.testing.assert_array_equal(out, ufunc(a, b.reshape(1, 3, 1)))
    assert out.dtype == np.bool_
    with pytest.raises(ValueError, match="broadcast is 0"):
        _fn(operator, 1)(a, b)
    c = np.array([False, True, True, False])
    np.testing.assert_array_equal(_fn(operator, 7)(a, c), ufunc(a, c))
    with pytest.raises(ValueError, match="bool"):
        _fn(operator, 7)(a.astype(np.int8), c)


def test_not_needs_bool() -> None:
    np.testing.assert_array_equal(_fn("Not", 1)(np.array([True, False])), [False, True])
    with pytest.raises(ValueError, match="bool"):
        _fn("Not", 1)(np.array([1, 0], dtype=np.int32))


def test_bitwise_keep_the_integer_type_exactly() -> None:
    a = np.array([0xFFFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0001], dtype=np.uint64)
    b = np.array([0x0F0F_0F0F_0F0F_0F0F], dtype=np.uint64)
    for operator, want in (
        ("BitwiseAnd", [0x0F0F_0F0F_0F0F_0F0F, 0x0000_0000_0000_0001]),
        ("BitwiseOr", [0xFFFF_FFFF_FFFF_FFFF, 0x8F0F_0F0F_0F0F_0F0F]),
        ("BitwiseXor", [0xF0F0_F0F0_F0F0_F0F0, 0x8F0F_0F0F_0F0F_0F0E]),
    ):
        out = _fn(operator, 18)(a, b)
        assert out.dtype == np.uint64
        np.testing.assert_array_equal(out, np.array(want, dtype=np.uint64))
        with pytest.raises(ValueError, match="one element type"):
            _fn(operator, 18)(a, b.astype(np.int64))
        with pytest.raises(ValueError, match="integer"):
            _fn(operator, 18)(a.astype(np.float32), b.astype(np.float32))
    out = _fn("BitwiseNot", 18)(np.array([0, -1, 127, -128], dtype=np.int8))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [-1, 0, -128, 127])


def test_bit_shift_11_is_unsigned_only() -> None:
    x = np.array([1, 0x80, 0xFF], dtype=np.uint8)
    s = np.array([7, 1, 8], dtype=np.uint8)
    np.testing.assert_array_equal(_fn("BitShift", 11)(x, s, direction="LEFT"), [0x80, 0, 0])
    np.testing.assert_array_equal(_fn("BitShift", 11)(x, s, direction=b"RIGHT"), [0, 0x40, 0])
    with pytest.raises(ValueError, match="unsigned"):
        _fn("BitShift", 11)(x.astype(np.int8), s.astype(np.int8), direction="LEFT")


def test_bit_shift_28_signed_and_out_of_range_amounts() -> None:
    fn = _fn("BitShift", 28)
    x = np.array([-(2**63), -1, 3, -5, 5], dtype=np.int64)
    s = np.array([1, 63, 62, 64, -1], dtype=np.int64)
    left = fn(x, s, direction="LEFT")
    assert left.dtype == np.int64
    np.testing.assert_array_equal(left, [0, -(2**63), -(2**62), 0, 0])  # 0b11 << 62: bit 63 is the sign
    right = fn(x, s, direction="RIGHT")
    np.testing.assert_array_equal(right, [-(2**62), -1, 0, -1, 0])
    big = np.array([2**64 - 1], dtype=np.uint64)
    np.testing.assert_array_equal(fn(big, np.array([64, 63, 0], dtype=np.uint64), direction="RIGHT"), [0, 1, 2**64 - 1])
    with pytest.raises(ValueError, match="direction"):
        fn(x, s)
    with pytest.raises(ValueError, match="LEFT or RIGHT"):
        fn(x, s, direction="UP")
    with pytest.raises(ValueError, match="one element type"):
        fn(x, s.astype(np.int32), direction="LEFT")


# ------------------------------------------------------------------------------------------------ Mod


def test_mod_integers_exact_and_division_by_zero_refused() -> None:
    a = np.array([-7, 7, -7, 7, -128], dtype=np.int8)
    b = np.array([3, -3, -3, 3, -1], dtype=np.int8)
    floor_mod = _fn("Mod", 13)(a, b)
    assert floor_mod.dtype == np.int8
    np.testing.assert_array_equal(floor_mod, [2, -2, -1, 1, 0])
    np.testing.assert_array_equal(_fn("Mod", 10)(a, b, fmod=1), [-1, 1, -1, 1, 0])
    big = np.array([2**64 - 1, 2**63 + 5], dtype=np.uint64)
    np.testing.assert_array_equal(_fn("Mod", 28)(big, np.array([10], dtype=np.uint64)), [5, 3])
    for version in (10, 13, 28):
        with pytest.raises(ValueError, match="by zero"):
            _fn("Mod", version)(a, np.zeros_like(a))
    with pytest.raises(ValueError, match="0 or 1"):
        _fn("Mod", 28)(a, b, fmod=2)
    with pytest.raises(ValueError, match="one element type"):
        _fn("Mod", 28)(a, b.astype(np.int16))


def test_mod_floats_need_fmod_1_before_opset_28() -> None:
    a = np.array([-4.5, 4.5], dtype=np.float32)
    b = np.array([2.0, -2.0], dtype=np.float32)
    for version in (10, 13):
        with pytest.raises(ValueError, match="fmod=1"):
            _fn("Mod", version)(a, b)
        np.testing.assert_array_equal(_fn("Mod", version)(a, b, fmod=1), [-0.5, 0.5])
    out = _fn("Mod", 28)(a, b)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.5, -1.5])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_mod_28_float_special_cases(dtype: np.dtype[Any]) -> None:
    inf, nan = np.inf, np.nan
    a = np.array([0.0, -0.0, 0.0, inf, -inf, 3.0, 3.0, -3.0, 3.0, -3.0, nan, 1.0, 0.0], dtype=dtype)
    b = np.array([-2.0, 2.0, 2.0, 2.0, 2.0, 0.0, -0.0, inf, -inf, -inf, 2.0, nan, -inf], dtype=dtype)
    out = _fn("Mod", 28)(a, b).astype(np.float64)
    np.testing.assert_array_equal(out[:3], [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(np.signbit(out[:3]), [True, False, False])  # zero takes B's sign
    assert np.isnan(out[3:7]).all()  # infinite A, zero B
    np.testing.assert_array_equal(out[7:10], [inf, -inf, -3.0])  # infinite B: A if same sign, else B
    assert np.isnan(out[10:12]).all()
    assert out[12] == 0 and np.signbit(out[12])
    c = _fn("Mod", 28)(a, b, fmod=1).astype(np.float64)
    np.testing.assert_array_equal(c[7:10], [-3.0, 3.0, -3.0])  # fmod: infinite B gives A
    assert np.isnan(c[3:7]).all()


# ---------------------------------------------------------------------------------------- comparisons


@pytest.mark.parametrize("operator,ufunc", [("GreaterOrEqual", np.greater_equal), ("LessOrEqual", np.less_equal)])
def test_or_equal_comparisons(operator: str, ufunc: Any) -> None:
    a = np.array([2**63 + 1, 2**63, 5], dtype=np.uint64)
    b = np.array([2**63, 2**63, 6], dtype=np.uint64)  # would collapse to equal through float64
    for version in (12, 16):
        out = _fn(operator, version)(a, b)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, ufunc(a, b))
    x = np.array([np.nan, 1.0], dtype=BF16)
    np.testing.assert_array_equal(_fn(operator, 16)(x, np.array([np.nan], dtype=BF16)), [False, False])
    with pytest.raises(ValueError, match="one element type"):
        _fn(operator, 16)(a, b.astype(np.int64))


# ----------------------------------------------------------------------------------------------- Mean


def test_mean_versions() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    b = np.array([3.0, 6.0], dtype=np.float32)
    np.testing.assert_array_equal(_fn("Mean", 8)(a, b), [[2.0, 4.0], [3.0, 5.0]])
    np.testing.assert_array_equal(_fn("Mean", 13)(a), a)
    for version in (1, 6):
        with pytest.raises(ValueError, match="one shape"):
            _fn("Mean", version)(a, b)
        np.testing.assert_array_equal(_fn("Mean", version)(a, a + 2), a + 1)
    with pytest.raises(ValueError, match="at least one"):
        _fn("Mean", 13)()
    with pytest.raises(ValueError, match="one element type"):
        _fn("Mean", 13)(a, a.astype(np.float64))


def test_mean_of_float16_sums_without_overflow() -> None:
    x = np.array([60000.0], dtype=np.float16)  # x + x overflows float16
    out = _fn("Mean", 13)(x, x, x)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, x)


# ---------------------------------------------------------------------------------------- activations


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_activations_keep_the_float_type(dtype: np.dtype[Any]) -> None:
    x = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype=dtype)
    for operator in (
        "Elu",
        "Selu",
        "HardSigmoid",
        "HardSwish",
        "Mish",
        "Softplus",
        "Softsign",
        "ThresholdedRelu",
        "Swish",
        "Gelu",
        "Celu",
        "Shrink",
        "LogSoftmax",
        "Hardmax",
    ):
        out = _fn(operator, _latest(operator))(x)
        assert out.dtype == dtype and out.shape == x.shape, operator


def test_activation_values() -> None:
    x = _f64(-2.0, -0.5, 0.0, 0.5, 3.0)
    em1 = np.expm1(np.minimum(x, 0))
    np.testing.assert_allclose(_fn("Elu", 6)(x, alpha=2.0), np.where(x < 0, 2 * em1, x), rtol=1e-15)
    np.testing.assert_allclose(
        _fn("Selu", 22)(x, alpha=1.5, gamma=2.0), 2.0 * np.where(x > 0, x, 1.5 * em1), rtol=1e-15
    )
    np.testing.assert_allclose(
        _fn("Celu", 28)(x, alpha=2.0), np.maximum(x, 0) + np.minimum(2 * np.expm1(x / 2), 0), rtol=1e-15
    )
    np.testing.assert_array_equal(_fn("HardSigmoid", 1)(x, alpha=0.5, beta=0.5), [0.0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(_fn("HardSwish", 14)(x), x * np.clip(x / 6 + 0.5, 0, 1), rtol=1e-15)
    np.testing.assert_array_equal(_fn("ThresholdedRelu", 10)(x, alpha=0.5), [0.0, 0.0, 0.0, 0.0, 3.0])
    np.testing.assert_allclose(_fn("Softplus", 1)(x), np.log1p(np.exp(x)), rtol=1e-15)
    np.testing.assert_allclose(_fn("Softsign", 22)(x), x / (1 + np.abs(x)), rtol=1e-15)
    np.testing.assert_allclose(_fn("Mish", 18)(x), x * np.tanh(np.log1p(np.exp(x))), rtol=1e-15)
    np.testing.assert_allclose(_fn("Swish", 24)(x, alpha=2.0), x / (1 + np.exp(-2 * x)), rtol=1e-15)
    gelu = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    np.testing.assert_allclose(_fn("Gelu", 20)(x), gelu, rtol=1e-15)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(_fn("Gelu", 20)(x, approximate=b"tanh"), tanh_form, rtol=1e-15)


def test_activations_at_infinities_take_their_limits() -> None:
    x = _f64(-np.inf, np.inf)
    np.testing.assert_array_equal(_fn("Softsign", 1)(x), [-1.0, 1.0])
    np.testing.assert_array_equal(_fn("Softplus", 22)(_f64(-np.inf, 1000.0, np.inf)), [0.0, 1000.0, np.inf])
    for operator in ("HardSwish", "Mish", "Swish", "Gelu"):
        out = _fn(operator, _latest(operator))(x)
        np.testing.assert_array_equal(out, [0.0, np.inf], err_msg=operator)
    np.testing.assert_array_equal(_fn("Gelu", 20)(x, approximate="tanh"), [0.0, np.inf])
    np.testing.assert_array_equal(_fn("Swish", 24)(x, alpha=-1.0), [-np.inf, 0.0])
    np.testing.assert_array_equal(_fn("Elu", 22)(x), [-1.0, np.inf])
    assert np.isnan(_fn("Mish", 22)(_f64(np.nan))).all()


def test_activation_refusals() -> None:
    x = np.array([1.0], dtype=np.float32)
    with pytest.raises(ValueError, match="nonzero"):
        _fn("Celu", 12)(x, alpha=0.0)
    with pytest.raises(ValueError, match="'none' or 'tanh'"):
        _fn("Gelu", 20)(x, approximate="erf")
    with pytest.raises(ValueError, match="floating-point"):
        _fn("Elu", 22)(np.array([1], dtype=np.int32))


def test_prelu_6_slope_forms_and_7_unidirectional_broadcasting() -> None:
    x = np.array([[[-1.0, 2.0]], [[-3.0, -4.0]], [[5.0, -6.0]]], dtype=np.float32).reshape(1, 3, 2)
    channel = np.array([1.0, 0.5, 0.25], dtype=np.float32)
    np.testing.assert_array_equal(_fn("PRelu", 6)(x, channel), [[[-1.0, 2.0], [-1.5, -2.0], [5.0, -1.5]]])
    np.testing.assert_array_equal(_fn("PRelu", 1)(x, np.array([0.5], dtype=np.float32)), np.where(x < 0, x / 2, x))
    with pytest.raises(ValueError, match="per channel"):
        _fn("PRelu", 6)(x, np.array([1.0, 2.0], dtype=np.float32))
    last = np.array([0.5, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(_fn("PRelu", 7)(x, last), np.where(x < 0, x * last, x))
    with pytest.raises(ValueError, match="does not broadcast"):
        _fn("PRelu", 16)(x[0, 0], x)
    ints = np.array([-(2**40), 3], dtype=np.int64)
    out = _fn("PRelu", 9)(ints, np.array([3], dtype=np.int64))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [-3 * 2**40, 3])


def test_shrink_floats_and_exact_integers() -> None:
    x = np.arange(-3.0, 3.5, 1.0, dtype=np.float32)
    np.testing.assert_array_equal(_fn("Shrink", 9)(x, lambd=1.5, bias=0.5), [-2.5, -1.5, 0, 0, 0, 1.5, 2.5])
    big = np.array([-(2**62) - 1, -3, -1, 0, 1, 3, 2**62 + 1], dtype=np.int64)
    out = _fn("Shrink", 9)(big, lambd=1.5, bias=2.0)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [-(2**62) + 1, -1, 0, 0, 0, 1, 2**62 - 1])
    # a fractional bias: the real result truncated toward zero
    small = np.array([-5, -2, 2, 5], dtype=np.int8)
    np.testing.assert_array_equal(_fn("Shrink", 9)(small, lambd=1.0, bias=2.5), [-2, 0, 0, 2])
    np.testing.assert_array_equal(_fn("Shrink", 9)(small, lambd=1.0, bias=-0.5), [-5, -2, 2, 5])
    u = np.array([0, 1, 2, 200], dtype=np.uint8)
    np.testing.assert_array_equal(_fn("Shrink", 9)(u, lambd=0.5, bias=1.0), [0, 0, 1, 199])
    with pytest.raises(ValueError, match="does not fit"):
        _fn("Shrink", 9)(small, bias=300.0)
    with pytest.raises(ValueError, match="finite"):
        _fn("Shrink", 9)(small, lambd=math.inf)


# -------------------------------------------------------------------------------- LogSoftmax, Hardmax


def _log_softmax_reference(x: np.ndarray, axis: int) -> np.ndarray:
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_log_softmax_11_flattens_and_13_uses_one_axis() -> None:
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    old = _fn("LogSoftmax", 11)(x, axis=1)
    np.testing.assert_allclose(old, _log_softmax_reference(x.reshape(2, 12), 1).reshape(2, 3, 4), rtol=1e-14)
    np.testing.assert_allclose(_fn("LogSoftmax", 13)(x, axis=1), _log_softmax_reference(x, 1), rtol=1e-14)
    np.testing.assert_allclose(_fn("LogSoftmax", 1)(x, axis=2), _fn("LogSoftmax", 13)(x, axis=-1), rtol=1e-14)
    np.testing.assert_allclose(_fn("LogSoftmax", 11)(x), old)  # default axis 1 before 13
    with pytest.raises(ValueError, match="negative axis"):
        _fn("LogSoftmax", 1)(x, axis=-1)
    with pytest.raises(ValueError, match="outside rank"):
        _fn("LogSoftmax", 13)(x, axis=3)


def test_log_softmax_large_values_scalar_and_empty() -> None:
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(_fn("LogSoftmax", 13)(x), [[-math.log(2), -math.log(2)], [-1000.0, 0.0]], atol=1e-6)
    for version in (1, 11, 13):
        assert _fn("LogSoftmax", version)(np.array(3.0, dtype=np.float32), axis=0).tolist() == 0.0
        out = _fn("LogSoftmax", version)(np.zeros((0, 3), dtype=np.float16), axis=1)
        assert out.shape == (0, 3) and out.dtype == np.float16


def test_hardmax_versions_ties_and_shapes() -> None:
    x = np.array([[[1.0, 3.0], [3.0, 0.0]], [[2.0, 2.0], [0.0, 1.0]]], dtype=np.float32)
    # 13, axis 1: the first maximum along dimension 1
    np.testing.assert_array_equal(_fn("Hardmax", 13)(x, axis=1), [[[0, 1], [1, 0]], [[1, 1], [0, 0]]])
    # 11, axis 1: one 1 per row of the (2, 4) view, the first of the tied maxima
    np.testing.assert_array_equal(_fn("Hardmax", 11)(x, axis=1), [[[0, 1], [0, 0]], [[1, 0], [0, 0]]])
    np.testing.assert_array_equal(_fn("Hardmax", 13)(x), _fn("Hardmax", 1)(x, axis=2))
    with pytest.raises(ValueError, match="negative axis"):
        _fn("Hardmax", 1)(x, axis=-1)
    assert _fn("Hardmax", 13)(x.astype(BF16)).dtype == BF16
    assert _fn("Hardmax", 13)(np.array(-5.0)).tolist() == 1.0
    empty = _fn("Hardmax", 11)(np.zeros((3, 0), dtype=np.float64), axis=1)
    assert empty.shape == (3, 0) and empty.dtype == np.float64
