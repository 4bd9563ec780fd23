"""Batch b kernels (conversion, reductions, index and layout operators): behaviour the backend cases leave out.

Version differences, refusals, edge cases (empty tensors, negative axes, special values) and result types.
ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto

from sonnx.ops import REGISTRY

F32, I64 = np.float32, np.int64


def _fn(operator: str, opset: int) -> Any:
    return REGISTRY.lookup("", operator, opset)[0].fn


def _f32(values: list[float]) -> np.ndarray:
    return np.array(values, dtype=F32)


def _codes(x: np.ndarray) -> list[int]:
    """The stored bytes of a one-byte ml_dtypes array."""
    return [int(v) for v in x.view(np.uint8)]


# -- Cast / CastLike ------------------------------------------------------------------------------


def test_cast_float8_saturate_clamps_and_without_it_follows_the_type() -> None:
    cast = _fn("Cast", 19)
    x = _f32([1e6, -1e6, np.inf, -np.inf, np.nan, 460.0, 470.0, 0.3])
    sat = cast(x, to=TensorProto.FLOAT8E4M3FN)
    assert sat.dtype == ml_dtypes.float8_e4m3fn
    np.testing.assert_array_equal(sat.astype(F32), [448, -448, 448, -448, np.nan, 448, 448, 0.3125])
    raw = cast(x, to=TensorProto.FLOAT8E4M3FN, saturate=0)  # no infinity in E4M3FN: NaN
    np.testing.assert_array_equal(raw.astype(F32), [np.nan, np.nan, np.nan, np.nan, np.nan, 448, np.nan, 0.3125])
    e5m2 = cast(x[:4], to=TensorProto.FLOAT8E5M2, saturate=0)  # E5M2 has infinities
    np.testing.assert_array_equal(e5m2.astype(F32), [np.inf, -np.inf, np.inf, -np.inf])
    np.testing.assert_array_equal(cast(x[:4], to=TensorProto.FLOAT8E5M2).astype(F32), [57344, -57344] * 2)
    # FNUZ types have no negative zero
    assert _codes(cast(_f32([-0.0]), to=TensorProto.FLOAT8E4M3FNUZ)) == [0]
    assert _codes(cast(_f32([-0.0]), to=TensorProto.FLOAT8E4M3FN)) == [0x80]


def test_cast_float8_from_integers_and_other_small_floats() -> None:
    cast = _fn("Cast", 21)
    big = np.array([2**63 + 5, 3], dtype=np.uint64)
    np.testing.assert_array_equal(cast(big, to=TensorProto.FLOAT8E5M2).astype(F32), [57344, 3])
    bf = np.array([300.0, -1.0], dtype=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(cast(bf, to=TensorProto.FLOAT8E4M3FNUZ).astype(F32), [240, -1])
    np.testing.assert_array_equal(cast(bf, to=TensorProto.FLOAT8E4M3FNUZ, saturate=0).astype(F32), [np.nan, -1])
    assert cast(np.array([True, False]), to=TensorProto.FLOAT8E5M2FNUZ).astype(F32).tolist() == [1.0, 0.0]


def test_cast_e8m0_round_modes_and_saturation() -> None:
    cast = _fn("Cast", 24)
    x = _f32([1.0, 1.1, 1.5, 1.49, 3.0, 0.0, 2.0**127 * 1.5, np.inf, np.nan, -2.0, 2.0**-128])
    # codes are the biased exponents (value 2**(code - 127)); 255 is NaN
    assert _codes(cast(x, to=TensorProto.FLOAT8E8M0)) == [127, 128, 128, 128, 129, 0, 254, 254, 255, 255, 0]
    assert _codes(cast(x, to=TensorProto.FLOAT8E8M0, round_mode="down")) == [
        127, 127, 127, 127, 128, 0, 254, 254, 255, 255, 0
    ]
    assert _codes(cast(x, to=TensorProto.FLOAT8E8M0, round_mode="nearest")) == [
        127, 127, 128, 127, 129, 0, 254, 254, 255, 255, 0
    ]
    # without saturation, values beyond the range (0 and infinity included) are NaN
    assert _codes(cast(x, to=TensorProto.FLOAT8E8M0, saturate=0, round_mode="nearest")) == [
        127, 127, 128, 127, 129, 255, 255, 255, 255, 255, 255
    ]
    with pytest.raises(ValueError, match="round_mode"):
        cast(x, to=TensorProto.FLOAT8E8M0, round_mode="even")
    back = cast(np.array([0, 127, 254], dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu), to=TensorProto.FLOAT)
    np.testing.assert_array_equal(back, _f32([2.0**-127, 1.0, 2.0**127]))


def test_cast_to_2_and_4_bit_integers_rounds_to_even_and_keeps_the_low_bits() -> None:
    cast = _fn("Cast", 25)
    x = _f32([2.5, 3.5, -2.5, 7.6, -9.0, 16.0, np.nan, np.inf])
    got = cast(x, to=TensorProto.INT4)
    assert got.dtype == ml_dtypes.int4
    assert got.astype(I64).tolist() == [2, 4, -2, -8, 7, 0, 0, 0]
    assert cast(x, to=TensorProto.UINT4).astype(I64).tolist() == [2, 4, 14, 8, 7, 0, 0, 0]
    assert cast(x, to=TensorProto.INT2).astype(I64).tolist() == [-2, 0, -2, 0, -1, 0, 0, 0]
    assert cast(x, to=TensorProto.UINT2).astype(I64).tolist() == [2, 0, 2, 0, 3, 0, 0, 0]
    ints = np.array([200, -56, 1000, 7], dtype=np.int16)
    assert cast(ints, to=TensorProto.INT8).tolist() == [-56, -56, -24, 7]  # two's complement wrap
    assert cast(ints, to=TensorProto.INT4).astype(I64).tolist() == [-8, -8, -8, 7]
    assert cast(np.array([-3, 7], dtype=ml_dtypes.int4), to=TensorProto.UINT2).astype(I64).tolist() == [1, 3]


def test_cast_to_float4_and_float6_clamps_and_nan_becomes_negative_zero() -> None:
    x = _f32([0.25, 0.75, 9.0, -np.inf, np.nan])
    f4 = _fn("Cast", 23)(x, to=TensorProto.FLOAT4E2M1)
    np.testing.assert_array_equal(f4.astype(F32), [0.0, 1.0, 6.0, -6.0, 0.0])
    assert np.signbit(f4.astype(F32)[4])
    f6 = _fn("Cast", 28)(x, to=TensorProto.FLOAT6E3M2)
    assert f6.dtype == ml_dtypes.float6_e3m2fn
    np.testing.assert_array_equal(f6.astype(F32), [0.25, 0.75, 8.0, -28.0, 0.0])


def test_cast_text_both_ways() -> None:
    cast = _fn("Cast", 25)
    text = np.array(["+INF", "nan", " 1E8 ", "-inf", "2.5"], dtype=object)
    np.testing.assert_array_equal(cast(text, to=TensorProto.FLOAT), _f32([np.inf, np.nan, 1e8, -np.inf, 2.5]))
    np.testing.assert_array_equal(cast(text, to=TensorProto.FLOAT8E4M3FN).astype(F32), [448, np.nan, 448, -448, 2.5])
    assert cast(np.array(["7", "-9"], dtype=object), to=TensorProto.INT4).astype(I64).tolist() == [7, 7]
    assert cast(np.array(["0", "0.5"], dtype=object), to=TensorProto.BOOL).tolist() == [False, True]
    with pytest.raises(ValueError, match="not a number"):
        cast(text[4:], to=TensorProto.INT32)
    with pytest.raises(ValueError, match="not a number"):
        cast(np.array(["one"], dtype=object), to=TensorProto.DOUBLE)
    out = cast(_f32([1.5, np.nan, -np.inf, 1e-5]), to=TensorProto.STRING)
    assert out.dtype == object and out.tolist() == ["1.5", "NaN", "-INF", "1e-05"]
    f8 = np.array([0.46875, 448.0], dtype=ml_dtypes.float8_e4m3fn)
    assert cast(f8, to=TensorProto.STRING).tolist() == ["0.4688", "448.0"]  # shortest float16 text
    bf = np.array([0.478], dtype=ml_dtypes.bfloat16)
    assert cast(bf, to=TensorProto.STRING).tolist() == ["0.47851562"]  # shortest float32 text
    assert cast(np.array([-3], dtype=ml_dtypes.int4), to=TensorProto.STRING).tolist() == ["-3"]


def test_cast_refusals_and_identity() -> None:
    cast = _fn("Cast", 13)
    x = _f32([1.0])
    with pytest.raises(ValueError, match="complex"):
        cast(x, to=TensorProto.COMPLEX64)
    with pytest.raises(ValueError, match="complex"):
        cast(np.array([1j]), to=TensorProto.FLOAT)
    with pytest.raises(ValueError, match="not a tensor element type"):
        cast(x, to=999)
    same = cast(x, to=TensorProto.FLOAT)
    assert same.dtype == F32 and same is not x
    assert cast(np.zeros((2, 0), F32), to=TensorProto.INT64).shape == (2, 0)


def test_cast_like_takes_the_type_of_its_second_input() -> None:
    x = _f32([1e6, 2.7])
    like = np.zeros(3, dtype=ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(_fn("CastLike", 15)(x, like).astype(F32), [57344, 2.5])
    np.testing.assert_array_equal(_fn("CastLike", 19)(x, like, saturate=0).astype(F32), [np.inf, 2.5])
    assert _fn("CastLike", 25)(x, np.array([""], dtype=object)).tolist() == ["1e+06", "2.7"]  # as NumPy prints float32
    got = _fn("CastLike", 25)(x, np.array([1], dtype=ml_dtypes.uint4))
    assert got.dtype == ml_dtypes.uint4 and got.astype(I64).tolist() == [0, 3]
    codes = _codes(_fn("CastLike", 24)(_f32([1.1]), np.zeros(1, ml_dtypes.float8_e8m0fnu), round_mode="down"))
    assert codes == [127]


# -- BitCast --------------------------------------------------------------------------------------


def test_bit_cast_sub_byte_types_and_shapes() -> None:
    bit_cast = _fn("BitCast", 26)
    assert bit_cast(np.array([-1, 3, -8], dtype=ml_dtypes.int4), to=TensorProto.UINT4).astype(I64).tolist() == [
        15, 3, 8
    ]
    f4 = bit_cast(np.array([15, 1], dtype=ml_dtypes.uint4), to=TensorProto.FLOAT4E2M1)
    np.testing.assert_array_equal(f4.astype(F32), [-6.0, 0.5])
    assert bit_cast(np.array([3, 2], dtype=ml_dtypes.uint2), to=TensorProto.INT2).astype(I64).tolist() == [-1, -2]
    assert bit_cast(np.array([1.0], dtype=ml_dtypes.bfloat16), to=TensorProto.INT16).tolist() == [16256]
    scalar = bit_cast(np.array(1.0, dtype=F32), to=TensorProto.INT32)
    assert scalar.shape == () and int(scalar) == 1065353216
    t = bit_cast(np.arange(6, dtype=np.int32).reshape(2, 3).T, to=TensorProto.UINT32)  # not C-contiguous
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_bit_cast_refusals() -> None:
    bit_cast = _fn("BitCast", 26)
    with pytest.raises(ValueError, match="widths differ"):
        bit_cast(_f32([1.0]), to=TensorProto.INT64)
    with pytest.raises(ValueError, match="widths differ"):
        bit_cast(np.array([1], dtype=ml_dtypes.int4), to=TensorProto.INT8)
    with pytest.raises(ValueError, match="not a boolean"):
        bit_cast(np.array([2], dtype=np.uint8), to=TensorProto.BOOL)
    assert bit_cast(np.array([1, 0], dtype=np.uint8), to=TensorProto.BOOL).tolist() == [True, False]
    with pytest.raises(ValueError, match="strings"):
        bit_cast(np.array(["a"], dtype=object), to=TensorProto.UINT8)


# -- reductions -----------------------------------------------------------------------------------

_REDUCTIONS = {  # operator: (first version taking axes as an input, reference of a reduction over axis 1)
    "ReduceL1": (18, lambda x: np.abs(x).sum(1)),
    "ReduceL2": (18, lambda x: np.sqrt((x * x).sum(1))),
    "ReduceLogSum": (18, lambda x: np.log(x.sum(1))),
    "ReduceLogSumExp": (18, lambda x: np.log(np.exp(x).sum(1))),
    "ReduceMin": (18, lambda x: x.min(1)),
    "ReduceProd": (18, lambda x: x.prod(1)),
    "ReduceSumSquare": (18, lambda x: (x * x).sum(1)),
}


@pytest.mark.parametrize("operator", sorted(_REDUCTIONS))
def test_reductions_versions_and_negative_axes(operator: str) -> None:
    first_input, reference = _REDUCTIONS[operator]
    x = np.array([[1.0, 2.0, 3.0], [0.5, 4.0, 1.5]], dtype=np.float64)
    want = reference(x)
    np.testing.assert_allclose(_fn(operator, 11)(x, axes=[-1], keepdims=0), want, rtol=1e-12)
    np.testing.assert_allclose(_fn(operator, first_input)(x, np.array([1], I64), keepdims=1), want[:, None], rtol=1e-12)
    with pytest.raises(ValueError, match="negative axis"):
        _fn(operator, 1)(x, axes=[-1])
    half = _fn(operator, first_input)(x.astype(np.float16), np.array([1], I64), keepdims=0)
    assert half.dtype == np.float16
    np.testing.assert_allclose(half.astype(np.float64), want, rtol=2e-3)


def test_composite_reductions_keep_their_element_wise_part_with_noop() -> None:
    x = _f32([[-1.0, 2.0], [3.0, -4.0]])
    empty = np.array([], dtype=I64)

    def noop(op: str) -> np.ndarray:
        return np.asarray(_fn(op, 18)(x, empty, noop_with_empty_axes=1))

    np.testing.assert_array_equal(noop("ReduceSumSquare"), x * x)
    np.testing.assert_array_equal(noop("ReduceL1"), np.abs(x))
    np.testing.assert_array_equal(noop("ReduceL2"), np.abs(x))
    np.testing.assert_array_equal(noop("ReduceMin"), x)
    np.testing.assert_array_equal(noop("ReduceProd"), x)
    np.testing.assert_allclose(noop("ReduceLogSumExp"), x, rtol=1e-6)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(noop("ReduceLogSum"), np.log(x))
    # without noop, empty axes reduce everything
    assert _fn("ReduceSumSquare", 18)(x, empty, keepdims=0) == np.float32(30)


def test_reductions_over_empty_sets_and_special_values() -> None:
    empty = np.zeros((2, 0), dtype=np.int32)
    axis1 = np.array([1], I64)
    assert _fn("ReduceMin", 18)(empty, axis1, keepdims=0).tolist() == [2**31 - 1] * 2
    assert _fn("ReduceMin", 20)(np.zeros((1, 0), bool), axis1, keepdims=0).tolist() == [True]
    assert _fn("ReduceProd", 18)(empty, axis1, keepdims=0).tolist() == [1, 1]
    assert _fn("ReduceL2", 18)(empty.astype(F32), axis1, keepdims=0).tolist() == [0.0, 0.0]
    big = _f32([[1000.0, 1000.0], [-np.inf, -np.inf]])
    lse = _fn("ReduceLogSumExp", 18)(big, axis1, keepdims=0)
    np.testing.assert_allclose(lse, [1000.0 + np.log(2.0), -np.inf], rtol=1e-6)
    assert lse.dtype == F32
    assert _fn("ReduceMin", 13)(_f32([[1.0, np.nan]]), axes=[1]).tolist()[0][0] != 1.0  # NaN propagates
    # integer inputs stay integers: ReduceL2 truncates the root, ReduceSumSquare wraps in the input type
    assert _fn("ReduceL2", 13)(np.array([[3, 4], [1, 1]], np.int32), axes=[1], keepdims=0).tolist() == [5, 1]
    wrapped = _fn("ReduceSumSquare", 13)(np.array([[200, 200]], np.int16), axes=[1], keepdims=0)
    assert wrapped.dtype == np.int16 and wrapped.tolist() == [80000 - 2**16]


def test_reduce_min_bfloat16() -> None:
    x = np.array([[1.5, -2.0], [0.5, 3.0]], dtype=ml_dtypes.bfloat16)
    out = _fn("ReduceMin", 18)(x, np.array([1], I64), keepdims=0)
    assert out.dtype == ml_dtypes.bfloat16 and out.astype(F32).tolist() == [-2.0, 0.5]


# -- ArgMin ---------------------------------------------------------------------------------------


def test_arg_min_ties_nan_and_version_1() -> None:
    x = _f32([[2.0, 1.0, 1.0], [np.nan, 0.0, np.nan]])
    assert _fn("ArgMin", 13)(x, axis=1, keepdims=0).tolist() == [1, 0]  # NaN counts as the smallest
    assert _fn("ArgMin", 12)(x, axis=-1, keepdims=0, select_last_index=1).tolist() == [2, 2]
    assert _fn("ArgMin", 11)(x, axis=0).shape == (1, 3)
    with pytest.raises(ValueError, match="negative axis"):
        _fn("ArgMin", 1)(x, axis=-1)
    with pytest.raises(ValueError, match="empty axis"):
        _fn("ArgMin", 13)(np.zeros((2, 0), F32), axis=1)
    assert _fn("ArgMax", 12)(x[:1], axis=1, select_last_index=1).tolist() == [[0]]


# -- CumSum / CumProd -----------------------------------------------------------------------------


def test_cumulative_modes_axes_and_types() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    axis = np.array(-1, dtype=np.int32)
    cum_sum, cum_prod = _fn("CumSum", 14), _fn("CumProd", 26)
    assert cum_sum(x, axis).tolist() == [[1, 3, 6], [4, 9, 15]]
    assert cum_sum(x, axis, exclusive=1, reverse=1).tolist() == [[5, 3, 0], [11, 6, 0]]
    assert cum_prod(x, axis, exclusive=1).tolist() == [[1, 1, 2], [1, 4, 20]]
    assert cum_prod(x, np.array([0], I64), reverse=1).tolist() == [[4, 10, 18], [4, 5, 6]]
    assert cum_sum(x, axis).dtype == np.int32
    half = cum_sum(np.full(3, 0.1, np.float16), np.array(0, I64))
    assert half.dtype == np.float16
    assert cum_prod(np.zeros((2, 0), F32), np.array(1, I64), exclusive=1).shape == (2, 0)
    with pytest.raises(ValueError, match="outside rank"):
        cum_sum(x, np.array(2, I64))
    with pytest.raises(ValueError, match="0-D integer"):
        cum_sum(x, np.array([0, 1], I64))


# -- Expand, Tile, Range, Size, NonZero -----------------------------------------------------------


def test_expand_broadcasts_both_ways_and_refuses_mismatches() -> None:
    x = np.arange(3, dtype=F32).reshape(3, 1)
    assert _fn("Expand", 8)(x, np.array([1, 1], I64)).shape == (3, 1)  # shape may be smaller than the input
    assert _fn("Expand", 13)(x, np.array([2, 1, 4], I64)).shape == (2, 3, 4)
    assert _fn("Expand", 13)(x, np.array([3, 0], I64)).shape == (3, 0)
    with pytest.raises(ValueError, match="does not broadcast"):
        _fn("Expand", 13)(x, np.array([2, 4], I64))
    with pytest.raises(ValueError, match="negative"):
        _fn("Expand", 13)(x, np.array([-1, 1], I64))


def test_tile_version_1_repeats_along_one_axis() -> None:
    x = np.array([[1.0, 2.0]], dtype=F32)
    one = _fn("Tile", 1)(x, _f32([3]), _f32([0]))
    assert one.tolist() == [[1.0, 2.0]] * 3
    assert _fn("Tile", 1)(x, _f32([2]), _f32([-1])).tolist() == [[1.0, 2.0, 1.0, 2.0]]
    assert _fn("Tile", 6)(x, np.array([2, 2], I64)).tolist() == [[1.0, 2.0, 1.0, 2.0]] * 2
    assert _fn("Tile", 13)(x, np.array([0, 1], I64)).shape == (0, 2)
    with pytest.raises(ValueError, match="repeats for an input of rank 2"):
        _fn("Tile", 13)(x, np.array([2], I64))
    with pytest.raises(ValueError, match="whole number"):
        _fn("Tile", 1)(x, _f32([1.5]), _f32([0]))


def test_range_counts_types_and_stash_type() -> None:
    rng = _fn("Range", 27)
    i32 = np.int32
    assert rng(np.array(10, i32), np.array(4, i32), np.array(-3, i32)).tolist() == [10, 7]
    assert rng(np.array(1, i32), np.array(1, i32), np.array(1, i32)).shape == (0,)
    assert rng(np.array(5, i32), np.array(1, i32), np.array(1, i32)).dtype == i32
    np.testing.assert_allclose(_fn("Range", 11)(_f32(0.0), _f32(1.0), _f32(0.25)), [0.0, 0.25, 0.5, 0.75])
    h = np.float16
    s, lim, d = np.array(0.1, h), np.array(2.0, h), np.array(0.1, h)
    steps = np.arange(20)
    stashed = rng(s, lim, d)  # stash_type FLOAT: computed in float32, rounded once
    np.testing.assert_array_equal(stashed, (np.float32(s) + steps.astype(F32) * np.float32(d)).astype(h))
    own = rng(s, lim, d, stash_type=TensorProto.FLOAT16)  # computed in float16
    np.testing.assert_array_equal(own, s + steps.astype(h) * d)
    assert own.dtype == h and not np.array_equal(stashed, own)
    bf = rng(*(np.array(v, ml_dtypes.bfloat16) for v in (0.0, 3.0, 1.0)))
    assert bf.dtype == ml_dtypes.bfloat16 and bf.astype(F32).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="delta is 0"):
        rng(np.array(1, i32), np.array(4, i32), np.array(0, i32))


def test_size_and_non_zero() -> None:
    out = _fn("Size", 1)(np.zeros((2, 0, 3), F32))
    assert out.dtype == I64 and out.shape == () and int(out) == 0
    assert int(_fn("Size", 25)(np.zeros((2, 3), dtype=ml_dtypes.int2))) == 6
    nz = _fn("NonZero", 13)
    assert nz(np.array(5.0, F32)).shape == (0, 1)
    assert nz(np.array(0, I64)).shape == (0, 0)
    assert nz(_f32([[0.0, np.nan], [1.0, 0.0]])).tolist() == [[0, 1], [1, 0]]
    assert nz(np.array(["", "a", "b"], dtype=object)).tolist() == [[1, 2]]
    assert nz(np.zeros((2, 3), bool)).shape == (2, 0)


# -- OneHot, Trilu, EyeLike -----------------------------------------------------------------------


def test_one_hot_negative_indices_by_version() -> None:
    indices = np.array([1, -1, 3], dtype=I64)
    depth = np.array([3.0], dtype=F32)
    values = np.array([0, 7], dtype=np.int32)
    assert _fn("OneHot", 9)(indices, depth, values).tolist() == [[0, 7, 0], [0, 0, 0], [0, 0, 0]]
    assert _fn("OneHot", 11)(indices, depth, values).tolist() == [[0, 7, 0], [0, 0, 7], [0, 0, 0]]
    first = _fn("OneHot", 11)(indices, depth, values, axis=0)
    assert first.shape == (3, 3) and first.tolist() == [[0, 0, 0], [7, 0, 0], [0, 7, 0]]
    text = _fn("OneHot", 28)(_f32([0.9, 1.2]), np.array(2, I64), np.array(["off", "on"], dtype=object))
    assert text.tolist() == [["on", "off"], ["off", "on"]]  # float indices are truncated
    with pytest.raises(ValueError, match="axis 3 outside"):
        _fn("OneHot", 11)(indices, depth, values, axis=3)
    with pytest.raises(ValueError, match="off_value, on_value"):
        _fn("OneHot", 11)(indices, depth, values[:1])


def test_trilu_zeroes_by_type_and_diagonal() -> None:
    x = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)
    assert _fn("Trilu", 14)(x).tolist() == [["a", "b", "c"], ["", "e", "f"]]
    assert _fn("Trilu", 14)(x, np.array(-1, I64), upper=0).tolist() == [["", "", ""], ["d", "", ""]]
    b = np.ones((2, 2, 2), bool)
    assert _fn("Trilu", 14)(b, np.array(5, I64)).sum() == 0
    assert _fn("Trilu", 14)(b, np.array(-5, I64)).all()
    with pytest.raises(ValueError, match="rank 2"):
        _fn("Trilu", 14)(np.ones(3, F32))


def test_eye_like_types() -> None:
    x = np.zeros((2, 3), dtype=np.int32)
    default = _fn("EyeLike", 9)(x)
    assert default.dtype == np.int32 and default.tolist() == [[1, 0, 0], [0, 1, 0]]
    assert _fn("EyeLike", 22)(x, dtype=TensorProto.BOOL, k=-1).tolist() == [[False] * 3, [True, False, False]]
    bf = _fn("EyeLike", 22)(x, dtype=TensorProto.BFLOAT16, k=2)
    assert bf.dtype == ml_dtypes.bfloat16 and bf.astype(F32).tolist() == [[0, 0, 1], [0, 0, 0]]
    with pytest.raises(ValueError, match="rank 2"):
        _fn("EyeLike", 22)(np.zeros(3, F32))
    with pytest.raises(ValueError, match="not allowed"):
        _fn("EyeLike", 22)(x, dtype=TensorProto.STRING)


# -- Compress, DepthToSpace / SpaceToDepth, ReverseSequence ---------------------------------------


def test_compress_condition_lengths_and_version_9() -> None:
    x = np.arange(6, dtype=F32).reshape(3, 2)
    assert _fn("Compress", 11)(x, np.array([False, True])).tolist() == [1.0]  # flattened, shorter condition
    assert _fn("Compress", 11)(x, np.array([False, True]), axis=0).tolist() == [[2.0, 3.0]]
    assert _fn("Compress", 11)(x, np.array([True, False, True, False]), axis=0).tolist() == [[0.0, 1.0], [4.0, 5.0]]
    with pytest.raises(ValueError, match="selects index 3"):
        _fn("Compress", 11)(x, np.array([False, False, False, True]), axis=0)
    assert _fn("Compress", 11)(x, np.array([True]), axis=-1).tolist() == [[0.0], [2.0], [4.0]]
    with pytest.raises(ValueError, match="negative axis"):
        _fn("Compress", 9)(x, np.array([True]), axis=-1)
    assert _fn("Compress", 28)(x, np.zeros(6, bool)).shape == (0,)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_space_to_depth_inverts_depth_to_space(mode: str) -> None:
    x = np.arange(2 * 8 * 2 * 3, dtype=F32).reshape(2, 8, 2, 3)
    up = _fn("DepthToSpace", 13)(x, blocksize=2, mode=mode)
    assert up.shape == (2, 2, 4, 6)
    np.testing.assert_array_equal(_fn("SpaceToDepth", 28)(up, blocksize=2, mode=mode), x)


def test_depth_space_versions_and_refusals() -> None:
    x = np.arange(16, dtype=F32).reshape(1, 4, 2, 2)
    dcr = _fn("DepthToSpace", 11)(x, blocksize=2)
    np.testing.assert_array_equal(_fn("DepthToSpace", 1)(x, blocksize=2), dcr)
    assert dcr[0, 0].tolist() == [[0, 4, 1, 5], [8, 12, 9, 13], [2, 6, 3, 7], [10, 14, 11, 15]]
    np.testing.assert_array_equal(_fn("SpaceToDepth", 1)(dcr, blocksize=2), x)
    eight = np.arange(8, dtype=F32).reshape(1, 8, 1, 1)  # two output channels: the orders differ
    assert _fn("DepthToSpace", 11)(eight, blocksize=2).reshape(-1).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert _fn("DepthToSpace", 11)(eight, blocksize=2, mode="CRD").reshape(-1).tolist() == list(range(8))
    with pytest.raises(ValueError, match="multiple of blocksize"):
        _fn("DepthToSpace", 13)(np.zeros((1, 3, 2, 2), F32), blocksize=2)
    with pytest.raises(ValueError, match="multiples of blocksize"):
        _fn("SpaceToDepth", 13)(np.zeros((1, 1, 3, 2), F32), blocksize=2)
    with pytest.raises(ValueError, match="DCR or CRD"):
        _fn("SpaceToDepth", 28)(np.zeros((1, 1, 2, 2), F32), blocksize=2, mode="RCD")
    with pytest.raises(ValueError, match="rank 4"):
        _fn("DepthToSpace", 13)(np.zeros((4, 2, 2), F32), blocksize=2)


def test_reverse_sequence_higher_rank_and_refusals() -> None:
    x = np.arange(2 * 3 * 2, dtype=np.int32).reshape(2, 3, 2)  # [batch, time, feature]
    out = _fn("ReverseSequence", 10)(x, np.array([3, 1], I64), batch_axis=0, time_axis=1)
    assert out[0].tolist() == x[0, ::-1].tolist() and out[1].tolist() == x[1].tolist()
    with pytest.raises(ValueError, match=r"lie in \[0, 3\]"):
        _fn("ReverseSequence", 28)(x, np.array([4, 1], I64), batch_axis=0, time_axis=1)
    with pytest.raises(ValueError, match="2 sequence lengths"):
        _fn("ReverseSequence", 28)(x, np.array([1, 1], I64))  # batch_axis 1 has 3 entries
    with pytest.raises(ValueError, match="must be 0 and 1"):
        _fn("ReverseSequence", 28)(x, np.array([1, 1], I64), batch_axis=0, time_axis=0)
