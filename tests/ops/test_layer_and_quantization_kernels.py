"""Transposed convolution, Lp and RoI pooling, unpooling, the normalisation layers (catalog_nn) and the quantized
arithmetic (catalog_quantization), checked directly.

ONNX backend conformance runs in tests/conformance; these tests cover what the
backend cases do not: version differences, refusals, element types of the
results, edge cases, and naive references (element loops over small shapes)
for ConvTranspose and MaxRoiPool.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto

from sonnx.ops import catalog_nn, catalog_quantization
from sonnx.ops.base import KernelRegistry

REGISTRY = KernelRegistry(k for m in (*catalog_nn.MODULES, *catalog_quantization.MODULES) for k in m.KERNELS)


def kernel(op: str, version: int) -> Any:
    return REGISTRY.lookup("", op, version)[0].fn


# ------------------------------------------------------------------------------------------- ConvTranspose


def naive_conv_transpose(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    begin: Sequence[int],
    out: Sequence[int],
    group: int,
) -> np.ndarray:
    """Every input element adds its filter, scaled, at ``i * stride + k * dilation - begin`` (when inside)."""
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    r = x.ndim - 2
    y = np.zeros((n, mg * group, *out), dtype=np.float64)
    for batch, ci in itertools.product(range(n), range(c)):
        g = ci // cg
        for i in itertools.product(*(range(v) for v in x.shape[2:])):
            for j in range(mg):
                for k in itertools.product(*(range(v) for v in w.shape[2:])):
                    pos = [i[a] * strides[a] + k[a] * dilations[a] - begin[a] for a in range(r)]
                    if all(0 <= pos[a] < out[a] for a in range(r)):
                        y[(batch, g * mg + j, *pos)] += float(x[(batch, ci, *i)]) * float(w[(ci, j, *k)])
    if b is not None:
        y += b.reshape(-1, *(1,) * r)
    return y


@st.composite
def conv_transpose_problems(draw: st.DrawFn) -> dict[str, Any]:
    r = draw(st.integers(1, 3))
    group = draw(st.integers(1, 3))
    cg, mg, n = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kshape = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    dilations = [draw(st.integers(1, 2)) for _ in range(r)]
    extra = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dilations, strict=True)]
    spatial = [draw(st.integers(1, 4 if r < 3 else 2)) for _ in range(r)]
    full = [(n_ - 1) * s + (k - 1) * d + 1 for n_, s, k, d in zip(spatial, strides, kshape, dilations, strict=True)]
    mode = draw(st.sampled_from(["pads", "output_shape", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    attrs: dict[str, Any] = dict(strides=strides, dilations=dilations, group=group, output_padding=extra)
    if mode == "pads":
        pads = [draw(st.integers(0, 2)) for _ in range(2 * r)]
        pads = [min(pads[a], full[a] // 2) for a in range(r)] + [min(pads[r + a], full[a] // 2) for a in range(r)]
        attrs["pads"] = pads
        begin = pads[:r]
        out = [f + e - pads[a] - pads[r + a] for a, (f, e) in enumerate(zip(full, extra, strict=True))]
    elif mode == "VALID":
        attrs["auto_pad"] = "VALID"
        begin, out = [0] * r, [f + e for f, e in zip(full, extra, strict=True)]
    else:
        if mode == "output_shape":
            out = [max(1, f + e + draw(st.integers(-2, 2))) for f, e in zip(full, extra, strict=True)]
            attrs["output_shape"] = out
        else:
            out = [v * s for v, s in zip(spatial, strides, strict=True)]
            attrs["auto_pad"] = mode
        totals = [max(f + e - o, 0) for f, e, o in zip(full, extra, out, strict=True)]
        upper = mode == "SAME_UPPER"
        begin = [t // 2 if upper else t - t // 2 for t in totals]
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    x = rng.standard_normal((n, group * cg, *spatial)).astype(np.float32)
    w = rng.standard_normal((group * cg, mg, *kshape)).astype(np.float32)
    b = rng.standard_normal(group * mg).astype(np.float32) if draw(st.booleans()) else None
    return dict(x=x, w=w, b=b, attrs=attrs, begin=begin, out=out)


@settings(max_examples=60, deadline=None)
@given(conv_transpose_problems())
def test_conv_transpose_matches_naive_reference(p: dict[str, Any]) -> None:
    a = p["attrs"]
    want = naive_conv_transpose(p["x"], p["w"], p["b"], a["strides"], a["dilations"], p["begin"], p["out"], a["group"])
    got = kernel("ConvTranspose", 22)(p["x"], p["w"], p["b"], **a)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv_transpose_is_the_adjoint_of_conv() -> None:
    """<Conv(x, W), y> == <x, ConvTranspose(y, W)> for matching strides, dilations, pads and groups."""
    from sonnx.ops.op_conv import conv

    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 9, 8))
    w = rng.standard_normal((6, 2, 3, 2))  # M=6, C/group=2, group=2
    attrs = dict(strides=[2, 3], dilations=[2, 1], pads=[1, 0, 2, 1], group=2)
    y = conv(x, w, **attrs)
    t = rng.standard_normal(y.shape)
    back = kernel("ConvTranspose", 11)(t, w, output_shape=list(x.shape[2:]), **attrs)
    # output_shape sets the padding itself: check it reproduced the explicit pads (begin 1 and 0)
    assert back.shape == x.shape
    assert math.isclose(float(np.sum(y * t)), float(np.sum(x * back)), rel_tol=1e-9)


@pytest.mark.parametrize("version", [1, 11, 22])
def test_conv_transpose_versions_and_float16(version: int) -> None:
    x = np.arange(6, dtype=np.float16).reshape(1, 1, 2, 3)
    w = np.ones((1, 2, 2, 2), dtype=np.float16)
    got = kernel("ConvTranspose", version)(x, w, np.array([1, -1], np.float16), strides=[2, 2])
    assert got.dtype == np.float16 and got.shape == (1, 2, 4, 6)
    want = np.repeat(np.repeat(x[0, 0], 2, axis=0), 2, axis=1)
    np.testing.assert_array_equal(got[0, 0], want + 1)
    np.testing.assert_array_equal(got[0, 1], want - 1)


def test_conv_transpose_output_shape_with_batch_and_channels_and_negative_total_padding() -> None:
    """An output_shape larger than the computed result is filled at the end (stride 2, kernel 1: zeros between)."""
    x = np.ones((1, 1, 2), np.float32)
    w = np.ones((1, 1, 2), np.float32)
    f = kernel("ConvTranspose", 22)
    # the full result [1, 2, 1]; output_shape fixes the padding: a negative total adds zeros at the end;
    # total 1 -> begin 1 (NOTSET: the larger half first), or 0 for SAME_UPPER
    got = f(x, w, output_shape=[1, 1, 5])
    np.testing.assert_array_equal(got[0, 0], [1, 2, 1, 0, 0])
    np.testing.assert_array_equal(f(x, w, output_shape=[4], auto_pad="SAME_LOWER")[0, 0], [1, 2, 1, 0])
    np.testing.assert_array_equal(f(x, w, output_shape=[2])[0, 0], [2, 1])
    np.testing.assert_array_equal(f(x, w, output_shape=[2], auto_pad="SAME_UPPER")[0, 0], [1, 2])
    three = np.array([[[1.0, 2.0, 3.0]]], np.float32)
    up = f(three, np.ones((1, 1, 1), np.float32), strides=[2], auto_pad="SAME_UPPER")
    np.testing.assert_array_equal(up[0, 0], [1, 0, 2, 0, 3, 0])


@pytest.mark.parametrize(
    "attrs,message",
    [
        (dict(group=2), "group"),
        (dict(kernel_shape=[3]), "kernel_shape"),
        (dict(output_padding=[2], strides=[2]), "output_padding"),
        (dict(pads=[2, 2]), "removes more"),
        (dict(pads=[-1, 0]), "negative"),
        (dict(auto_pad="SAME_UPPER", pads=[1, 0]), "auto_pad"),
        (dict(auto_pad="FOO"), "auto_pad"),
        (dict(strides=[1, 1]), "strides"),
    ],
)
def test_conv_transpose_refusals(attrs: dict[str, Any], message: str) -> None:
    x = np.ones((1, 3, 2), np.float32)
    w = np.ones((3, 1, 2), np.float32)
    with pytest.raises(ValueError, match=message):
        kernel("ConvTranspose", 22)(x, w, **attrs)


def test_conv_transpose_refuses_mismatched_weights_and_bias() -> None:
    f = kernel("ConvTranspose", 22)
    with pytest.raises(ValueError, match="input channels"):
        f(np.ones((1, 3, 2), np.float32), np.ones((2, 1, 2), np.float32))
    with pytest.raises(ValueError, match="B has shape"):
        f(np.ones((1, 2, 2), np.float32), np.ones((2, 3, 2), np.float32), np.ones(2, np.float32))


# --------------------------------------------------------------------------- ConvInteger, QLinearConv, MatMul


def test_conv_integer_per_channel_zero_point_and_int8() -> None:
    x = np.array([[[[-3, 4], [5, -6]]]], np.int8)
    w = np.array([[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]]], np.int8)
    got = kernel("ConvInteger", 10)(x, w, np.int8(1), np.array([1, -1], np.int8))
    xs = x.astype(np.int64) - 1
    want0 = int(np.sum(xs[0, 0] * (w[0, 0].astype(np.int64) - 1)))
    want1 = int(np.sum(xs[0, 0] * (w[1, 0].astype(np.int64) + 1)))
    assert got.dtype == np.int32 and got.shape == (1, 2, 1, 1)
    assert got.reshape(-1).tolist() == [want0, want1]


def test_conv_integer_refuses_per_channel_input_zero_point() -> None:
    with pytest.raises(ValueError, match="x_zero_point must be a scalar"):
        kernel("ConvInteger", 10)(np.ones((1, 1, 2, 2), np.uint8), np.ones((1, 1, 1, 1), np.uint8),
                                  np.ones(2, np.uint8))


def test_qlinear_conv_with_bias_and_per_channel_scales() -> None:
    x = np.array([[[[10, 20], [30, 40]]]], np.uint8)
    w = np.array([[[[2]]], [[[4]]]], np.int8)
    b = np.array([100, -50], np.int32)
    got = kernel("QLinearConv", 10)(
        x, np.float32(0.5), np.uint8(10), w, np.array([0.25, 0.5], np.float32), np.array([0, 0], np.int8),
        np.float32(1.0), np.int8(-3), b,
    )
    acc0 = (x.astype(np.int64) - 10) * 2 + 100
    acc1 = (x.astype(np.int64) - 10) * 4 - 50
    want0 = np.clip(np.rint(acc0 * 0.5 * 0.25) - 3, -128, 127)
    want1 = np.clip(np.rint(acc1 * 0.5 * 0.5) - 3, -128, 127)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got[0, 0], want0[0, 0])
    np.testing.assert_array_equal(got[0, 1], want1[0, 0])


def test_mat_mul_integer_per_row_and_per_column_zero_points_wrap_to_int32() -> None:
    a = np.array([[1, 2], [3, 4], [5, 6]], np.uint8)
    b = np.array([[7, 8, 9, 10], [11, 12, 13, 14]], np.int8)
    azp = np.array([1, 2, 3], np.uint8)
    bzp = np.array([0, 1, 2, 3], np.int8)
    got = kernel("MatMulInteger", 10)(a, b, azp, bzp)
    want = (a.astype(np.int64) - azp[:, None]) @ (b.astype(np.int64) - bzp[None, :])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    # shaped [M, 1] per-row zero points behave the same; a zero point of a wrong length is refused
    np.testing.assert_array_equal(kernel("MatMulInteger", 10)(a, b, azp.reshape(3, 1), bzp), want)
    with pytest.raises(ValueError, match="per row"):
        kernel("MatMulInteger", 10)(a, b, np.array([1, 2], np.uint8))
    big = np.full((1, 70000), 255, np.uint8)
    wrapped = kernel("MatMulInteger", 10)(big, np.full((70000, 1), 255, np.uint8))
    assert int(wrapped[0, 0]) == np.int64(70000 * 255 * 255).astype(np.int32)


@pytest.mark.parametrize("version", [10, 21])
def test_qlinear_mat_mul_per_row_scales(version: int) -> None:
    a = np.array([[10, 20], [30, 40]], np.uint8)
    b = np.array([[1, 2], [3, 4]], np.uint8)
    a_scale = np.array([0.5, 0.25], np.float32)
    got = kernel("QLinearMatMul", version)(
        a, a_scale, np.array([0, 10], np.uint8), b, np.float32(1), np.uint8(0), np.float32(2), np.uint8(5)
    )
    acc = (a.astype(np.int64) - np.array([[0], [10]])) @ b.astype(np.int64)
    want = np.clip(np.rint(acc * a_scale[:, None] / 2) + 5, 0, 255)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


def test_qlinear_mat_mul_float8() -> None:
    f8 = ml_dtypes.float8_e4m3fn
    a = np.array([[1, 2]], np.float32).astype(f8)
    b = np.array([[3], [4]], np.float32).astype(f8)
    zero = np.zeros((), f8)
    got = kernel("QLinearMatMul", 21)(a, np.float16(1), zero, b, np.float16(1), zero, np.float16(0.01), zero)
    assert got.dtype == np.dtype(f8)
    assert float(got.astype(np.float32)[0, 0]) == 448.0  # 1100 saturates to the largest e4m3fn value


# ------------------------------------------------------------------------------- Quantize / Dequantize


def test_quantize_rounds_half_to_even_and_saturates() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1000, -1000, np.inf, np.nan], np.float32)
    got = kernel("QuantizeLinear", 19)(x, np.float32(1), np.int8(0))
    assert got.dtype == np.int8
    assert got.tolist() == [0, 2, 2, 0, -2, -2, 127, -128, 127, 0]
    unsigned = kernel("QuantizeLinear", 13)(x[:8], np.float32(1))
    assert unsigned.dtype == np.uint8 and unsigned.tolist() == [0, 2, 2, 0, 0, 0, 255, 0]


def test_quantize_float8_saturate_flag() -> None:
    x = np.array([1e6, -1e6, np.inf, 300.0], np.float32)
    f = kernel("QuantizeLinear", 21)
    e4 = np.zeros((), ml_dtypes.float8_e4m3fn)
    e5 = np.zeros((), ml_dtypes.float8_e5m2)
    assert f(x, np.float32(1), e4).astype(np.float32).tolist() == [448, -448, 448, 288]
    non_saturated = f(x, np.float32(1), e4, saturate=0).astype(np.float32)
    assert np.isnan(non_saturated[:3]).all() and non_saturated[3] == 288
    assert f(x, np.float32(1), e5, saturate=0).astype(np.float32).tolist() == [np.inf, -np.inf, np.inf, 320]
    assert f(x, np.float32(1), e5).astype(np.float32).tolist() == [57344, -57344, 57344, 320]


def test_quantize_blocked_with_a_short_last_block_and_output_dtype() -> None:
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    scale = np.array([[1, 2, 4], [1, 1, 1]], np.float32)
    got = kernel("QuantizeLinear", 21)(x, scale, axis=1, block_size=2, output_dtype=TensorProto.INT4)
    assert got.dtype == np.dtype(ml_dtypes.int4)
    assert got.astype(np.int64).tolist() == [[0, 1, 1, 2, 1], [5, 6, 7, 7, 7]]
    with pytest.raises(ValueError, match="blocks"):
        kernel("QuantizeLinear", 21)(x, scale[:, :2], axis=1, block_size=2)
    with pytest.raises(ValueError, match="neither a scalar nor"):
        kernel("QuantizeLinear", 19)(x, scale)


def test_quantize_per_axis_negative_axis_and_2_bit() -> None:
    x = np.array([[0, 1, 2], [4, 6, 8]], np.float32)
    zp = np.array([0, -1], ml_dtypes.int2)
    got = kernel("QuantizeLinear", 25)(x, np.array([1, 2], np.float32), zp, axis=-2)
    assert got.dtype == np.dtype(ml_dtypes.int2)
    assert got.astype(np.int64).tolist() == [[0, 1, 1], [1, 1, 1]]


def test_quantize_output_dtype_and_precision() -> None:
    f = kernel("QuantizeLinear", 23)
    with pytest.raises(ValueError, match="differs from the zero point"):
        f(np.ones(2, np.float32), np.float32(1), np.uint8(0), output_dtype=TensorProto.INT8)
    assert f(np.ones(2, np.float32), np.float32(1), output_dtype=TensorProto.UINT16).dtype == np.uint16
    # 2049 / 1 is 2049 in float32 but 2048 in float16 (11-bit significand)
    x = np.array([2049], np.float32)
    assert f(x, np.float32(1), np.int16(0)).tolist() == [2049]
    assert f(x, np.float32(1), np.int16(0), precision=TensorProto.FLOAT16).tolist() == [2048]
    assert f(x, np.float16(1), np.int16(0)).tolist() == [2048]
    with pytest.raises(ValueError, match="precision"):
        f(x, np.float32(1), np.int16(0), precision=TensorProto.INT32)


def test_quantize_version_10_is_per_tensor_only() -> None:
    f = kernel("QuantizeLinear", 10)
    assert f(np.array([3.0, 5.0, 7.0], np.float32), np.float32(2), np.uint8(1)).tolist() == [3, 3, 5]
    with pytest.raises(ValueError, match="per tensor"):
        f(np.ones((2, 2), np.float32), np.ones(2, np.float32), np.zeros(2, np.uint8))


def test_quantize_int32_input_and_float4() -> None:
    got = kernel("QuantizeLinear", 19)(np.array([-300, 5, 300], np.int32), np.float32(2), np.int8(0))
    assert got.tolist() == [-128, 2, 127]
    f4 = kernel("QuantizeLinear", 23)(np.array([1.25, 100.0], np.float32), np.float32(1),
                                      np.zeros((), ml_dtypes.float4_e2m1fn))
    assert f4.astype(np.float32).tolist() == [1.0, 6.0]


def test_dequantize_output_types_by_version() -> None:
    x = np.array([0, 3, 128, 255], np.uint8)
    assert kernel("DequantizeLinear", 13)(x, np.float32(2), np.uint8(128)).tolist() == [-256, -250, 0, 254]
    y19 = kernel("DequantizeLinear", 19)(x, np.float16(2), np.uint8(128))
    assert y19.dtype == np.float16
    y23 = kernel("DequantizeLinear", 23)(x, np.float16(2), np.uint8(128), output_dtype=TensorProto.FLOAT)
    assert y23.dtype == np.float32 and y23.tolist() == [-256, -250, 0, 254]
    e8 = np.array(4, np.float32).astype(ml_dtypes.float8_e8m0fnu)
    y24 = kernel("DequantizeLinear", 24)(x, e8, output_dtype=TensorProto.BFLOAT16)
    assert y24.dtype == np.dtype(ml_dtypes.bfloat16) and y24.astype(np.float32).tolist() == [0, 12, 512, 1020]
    with pytest.raises(ValueError, match="output_dtype"):
        kernel("DequantizeLinear", 24)(x, e8)


def test_dequantize_per_axis_blocked_and_refusals() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    got = kernel("DequantizeLinear", 21)(x, np.array([1, 10, 100], np.float32), np.array([1, 1, 1], np.int8), axis=-1)
    assert got.tolist() == [[0, 10, 200], [3, 40, 500]]
    blocked = kernel("DequantizeLinear", 21)(x, np.array([[1, 2], [3, 4]], np.float32), axis=1, block_size=2)
    assert blocked.tolist() == [[1, 2, 6], [12, 15, 24]]
    with pytest.raises(ValueError, match="int32 data has no zero point"):
        kernel("DequantizeLinear", 13)(np.ones(2, np.int32), np.float32(1), np.int32(3))
    with pytest.raises(ValueError, match="one type"):
        kernel("DequantizeLinear", 13)(x, np.float32(1), np.uint8(3))
    with pytest.raises(ValueError, match="per tensor"):
        kernel("DequantizeLinear", 10)(x, np.ones(3, np.float32))
    with pytest.raises(ValueError, match="axis 2 outside"):
        kernel("DequantizeLinear", 13)(x, np.ones(3, np.float32), axis=2)


def test_quantize_then_dequantize_round_trip_float8_fnuz() -> None:
    x = np.array([0.0, -0.0, 1.5, -3.0, 1000.0], np.float32)
    zero = np.zeros((), ml_dtypes.float8_e4m3fnuz)
    q = kernel("QuantizeLinear", 19)(x, np.float32(1), zero)
    assert q.dtype == np.dtype(ml_dtypes.float8_e4m3fnuz)
    back = kernel("DequantizeLinear", 19)(q, np.float32(1), zero)
    assert back.tolist() == [0.0, 0.0, 1.5, -3.0, 240.0]
    assert not np.signbit(back[1])  # fnuz types have no negative zero


def test_dynamic_quantize_linear() -> None:
    f = kernel("DynamicQuantizeLinear", 11)
    y, scale, zp = f(np.array([0, 2, -3, -2.5, 1.34, 0.5], np.float32))
    assert scale.dtype == np.float32 and scale.shape == () and zp.dtype == np.uint8 and zp.shape == ()
    assert math.isclose(float(scale), 5 / 255, rel_tol=1e-6) and int(zp) == 153
    assert y.tolist() == [153, 255, 0, 26, 221, 179]
    y, scale, zp = f(np.zeros((2, 2), np.float32))
    assert y.tolist() == [[0, 0], [0, 0]] and float(scale) == 0 and int(zp) == 0
    y, scale, zp = f(np.array([np.nan, 1.0], np.float32))
    assert y.tolist() == [0, 255] and int(zp) == 0


# --------------------------------------------------------------------------------------- Lp pooling


@pytest.mark.parametrize("version", [1, 2, 11, 18, 22])
def test_lp_pool_versions(version: int) -> None:
    x = np.array([[[3.0, -4.0, 0.0, 12.0, 5.0]]], np.float32)
    p = 2.0 if version == 1 else 2
    got = kernel("LpPool", version)(x, kernel_shape=[2], strides=[2], pads=[0, 1], p=p)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got[0, 0], [5.0, 12.0, 5.0])


def test_lp_pool_p1_p3_ceil_mode_and_dilations() -> None:
    x = np.array([[[1.0, -2.0, 3.0, -4.0, 5.0]]], np.float64)
    f = kernel("LpPool", 18)
    np.testing.assert_allclose(f(x, kernel_shape=[2], strides=[2], p=1, ceil_mode=1)[0, 0], [3, 7, 5])
    np.testing.assert_allclose(f(x, kernel_shape=[2], p=3, dilations=[2])[0, 0],
                               [(1 + 27) ** (1 / 3), (8 + 64) ** (1 / 3), (27 + 125) ** (1 / 3)])
    with pytest.raises(ValueError, match="p must be positive"):
        f(x, kernel_shape=[2], p=0)


@pytest.mark.parametrize("version", [1, 2, 22])
def test_global_lp_pool(version: int) -> None:
    x = np.array([[[[3.0, 4.0], [0.0, 0.0]], [[1.0, -1.0], [1.0, -1.0]]]], np.float32)
    got = kernel("GlobalLpPool", version)(x, p=2)
    assert got.shape == (1, 2, 1, 1) and got.dtype == np.float32
    np.testing.assert_allclose(got.reshape(-1), [5.0, 2.0])
    np.testing.assert_allclose(kernel("GlobalLpPool", version)(x, p=1).reshape(-1), [7.0, 4.0])
    h = kernel("GlobalLpPool", version)(x.astype(np.float16)[:, :, :, :1], p=3)
    assert h.dtype == np.float16 and h.shape == (1, 2, 1, 1)


@pytest.mark.parametrize("version", [1, 22])
def test_lp_normalization_zero_norm_and_refusals(version: int) -> None:
    x = np.array([[3.0, 4.0], [0.0, 0.0]], np.float16)
    got = kernel("LpNormalization", version)(x, axis=-1, p=2)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.array([[0.6, 0.8], [0.0, 0.0]], np.float16))
    assert kernel("LpNormalization", version)(x, axis=0, p=1).tolist() == [[1.0, 1.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        kernel("LpNormalization", version)(x, p=3)
    with pytest.raises(ValueError, match="axis"):
        kernel("LpNormalization", version)(x, axis=2)


# ------------------------------------------------------------------------------------------- MaxUnpool


@pytest.mark.parametrize("version", [9, 11, 22])
def test_max_unpool_inverts_max_pool_with_output_shape(version: int) -> None:
    """MaxPool on a 5x5 input, then MaxUnpool with output_shape 5x5: maxima back in place, zeros elsewhere."""
    from sonnx.ops.op_max_pool import max_pool

    x = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
    y, idx = max_pool(x, kernel_shape=[2, 2], strides=[2, 2])
    got = kernel("MaxUnpool", version)(y, idx, np.array(x.shape, np.int64), kernel_shape=[2, 2], strides=[2, 2])
    assert got.shape == x.shape and got.dtype == np.float32
    kept = got != 0
    np.testing.assert_array_equal(got[kept], x[kept])
    assert kept.sum() == y.size
    repooled, _ = max_pool(np.where(kept, got, -np.inf).astype(np.float32), kernel_shape=[2, 2], strides=[2, 2])
    np.testing.assert_array_equal(repooled, y)


def test_max_unpool_default_shape_with_pads_and_refusals() -> None:
    f = kernel("MaxUnpool", 22)
    x = np.array([[[1.0, 2.0]]], np.float32)
    got = f(x, np.array([[[0, 3]]], np.int64), kernel_shape=[3], strides=[2], pads=[1, 0])
    assert got.shape == (1, 1, 4) and got.tolist() == [[[1.0, 0.0, 0.0, 2.0]]]
    with pytest.raises(ValueError, match="outside the output"):
        f(x, np.array([[[0, 4]]], np.int64), kernel_shape=[3], strides=[2], pads=[1, 0])
    with pytest.raises(ValueError, match="output_shape"):
        f(x, np.array([[[0, 1]]], np.int64), np.array([1, 2, 4], np.int64), kernel_shape=[3], strides=[2])
    with pytest.raises(ValueError, match="I has shape"):
        f(x, np.array([[[0]]], np.int64), kernel_shape=[3])


# ------------------------------------------------------------------------------------------ MaxRoiPool


def naive_max_roi_pool(x: np.ndarray, rois: np.ndarray, pooled: Sequence[int], scale: float) -> np.ndarray:
    ph, pw = pooled
    _, c, h, w = x.shape
    y = np.zeros((len(rois), c, ph, pw), dtype=np.float64)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (math.floor(abs(float(v) * scale) + 0.5) * (1 if v >= 0 else -1) for v in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i, j in itertools.product(range(ph), range(pw)):
            hs = min(max(y1 + math.floor(i * rh / ph), 0), h)
            he = min(max(y1 + math.ceil((i + 1) * rh / ph), 0), h)
            ws = min(max(x1 + math.floor(j * rw / pw), 0), w)
            we = min(max(x1 + math.ceil((j + 1) * rw / pw), 0), w)
            if he > hs and we > ws:
                y[r, :, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return y


@pytest.mark.parametrize("version", [1, 22])
def test_max_roi_pool_matches_naive_reference(version: int) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    rois = np.array(
        [[0, 0, 0, 10, 8], [1, 2.4, 1.6, 7.5, 5.5], [0, -3, -2, 2, 3], [1, 5, 5, 5, 5], [0, 20, 20, 30, 30],
         [1, 10.5, 0, 3, 8]],
        np.float32,
    )
    for pooled, scale in (([3, 2], 1.0), ([2, 4], 0.5), ([1, 1], 2.0)):
        got = kernel("MaxRoiPool", version)(x, rois, pooled_shape=pooled, spatial_scale=scale)
        assert got.dtype == np.float32 and got.shape == (len(rois), 3, *pooled)
        np.testing.assert_array_equal(got, naive_max_roi_pool(x, rois, pooled, scale))


def test_max_roi_pool_refusals() -> None:
    f = kernel("MaxRoiPool", 22)
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="pooled_shape"):
        f(x, np.zeros((1, 5), np.float32))
    with pytest.raises(ValueError, match="batch index"):
        f(x, np.array([[1, 0, 0, 1, 1]], np.float32), pooled_shape=[1, 1])
    with pytest.raises(ValueError, match="num_rois x 5"):
        f(x, np.zeros((1, 4), np.float32), pooled_shape=[1, 1])
    with pytest.raises(ValueError, match="spatial_scale"):
        f(x, np.zeros((1, 5), np.float32), pooled_shape=[1, 1], spatial_scale=0.0)


# ------------------------------------------------------------------------------------ Normalisations


def reference_layer_norm(x: np.ndarray, axis: int, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axes = tuple(range(axis % x.ndim, x.ndim))
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(((xd - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    return (xd - mean) * inv, mean, inv


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_layer_normalization_outputs_and_shapes(axis: int) -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    norm_shape = x.shape[axis % 3:]
    scale = rng.standard_normal(norm_shape).astype(np.float32)
    b = rng.standard_normal(norm_shape).astype(np.float32)
    y, mean, inv = kernel("LayerNormalization", 17)(x, scale, b, axis=axis, epsilon=1e-3)
    want, want_mean, want_inv = reference_layer_norm(x, axis, 1e-3)
    assert y.dtype == mean.dtype == inv.dtype == np.float32
    assert mean.shape == inv.shape == x.shape[: axis % 3] + (1,) * (3 - axis % 3)
    np.testing.assert_allclose(y, want * scale + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inv, want_inv, rtol=1e-5)


def test_layer_normalization_float16_stashes_in_float32() -> None:
    """A float16 input is standardised in float32 (stash_type 1): Mean and InvStdDev are float32."""
    x = np.array([[60000.0, 60010.0, 59990.0, 60000.0]], np.float16)  # float16 sums would overflow
    y, mean, inv = kernel("LayerNormalization", 17)(x, np.ones(4, np.float16), None)
    assert y.dtype == np.float16 and mean.dtype == np.float32 and inv.dtype == np.float32
    xs = x.astype(np.float32)
    assert float(mean[0, 0]) == float(xs.mean())
    want = (xs - xs.mean()) / np.sqrt(((xs - xs.mean()) ** 2).mean() + np.float32(1e-5))
    np.testing.assert_allclose(y.astype(np.float32), want, rtol=1e-3)
    assert np.isfinite(y.astype(np.float32)).all()


def test_layer_normalization_float64_with_stash_float32_and_bfloat16() -> None:
    x = np.array([[1.0, 2.0, 3.0 + 1e-9]], np.float64)
    y, mean, _ = kernel("LayerNormalization", 17)(x, np.ones(3), np.zeros(3))
    assert y.dtype == np.float64 and mean.dtype == np.float32
    # computed in float32, the 1e-9 is lost: the result is that of [1, 2, 3] exactly in float32
    y32, _, _ = kernel("LayerNormalization", 17)(x.astype(np.float32), np.ones(3, np.float32), None)
    np.testing.assert_array_equal(y, y32.astype(np.float64))
    yb, meanb, invb = kernel("LayerNormalization", 17)(x, np.ones(3), None, stash_type=TensorProto.BFLOAT16)
    assert meanb.dtype == invb.dtype == np.dtype(ml_dtypes.bfloat16) and yb.dtype == np.float64
    # every value of the stage is a bfloat16 one
    assert np.array_equal(yb, yb.astype(ml_dtypes.bfloat16).astype(np.float64))
    with pytest.raises(ValueError, match="stash_type"):
        kernel("LayerNormalization", 17)(x, np.ones(3), None, stash_type=TensorProto.DOUBLE)


def test_layer_normalization_broadcast_and_refusals() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y, _, _ = kernel("LayerNormalization", 17)(x, np.float32(2), np.array([1.0], np.float32))
    want = reference_layer_norm(x, -1, 1e-5)[0] * 2 + 1
    np.testing.assert_allclose(y, want, rtol=1e-5)
    with pytest.raises(ValueError, match="does not broadcast"):
        kernel("LayerNormalization", 17)(x, np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="axis 2 outside"):
        kernel("LayerNormalization", 17)(x, np.ones(4, np.float32), axis=2)


def test_rms_normalization() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scale = rng.standard_normal((3, 4)).astype(np.float32)
    got = kernel("RMSNormalization", 23)(x, scale, axis=1, epsilon=1e-3)
    xd = x.astype(np.float64)
    want = xd / np.sqrt((xd**2).mean(axis=(1, 2), keepdims=True) + 1e-3) * scale
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)
    h = kernel("RMSNormalization", 23)(x.astype(np.float16), scale.astype(np.float16), axis=-1)
    assert h.dtype == np.float16
    with pytest.raises(ValueError, match="does not broadcast"):
        kernel("RMSNormalization", 23)(x, np.ones(3, np.float32))


def test_group_normalization_versions() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    grouped = x.astype(np.float64).reshape(2, 2, 6)
    normalized = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + 1e-5))
    normalized = normalized.reshape(x.shape)
    per_group = np.array([2.0, 3.0], np.float32)
    v18 = kernel("GroupNormalization", 18)(x, per_group, np.array([0.5, -0.5], np.float32), num_groups=2)
    want18 = normalized * np.repeat(per_group, 2)[None, :, None] + np.repeat([0.5, -0.5], 2)[None, :, None]
    np.testing.assert_allclose(v18, want18, rtol=1e-5, atol=1e-6)
    per_channel = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    v21 = kernel("GroupNormalization", 21)(x, per_channel, np.zeros(4, np.float32), num_groups=2)
    np.testing.assert_allclose(v21, normalized * per_channel[None, :, None], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="one per channel"):
        kernel("GroupNormalization", 21)(x, per_group, per_group, num_groups=2)
    with pytest.raises(ValueError, match="one per group"):
        kernel("GroupNormalization", 18)(x, per_channel, per_channel, num_groups=2)
    with pytest.raises(ValueError, match="must divide"):
        kernel("GroupNormalization", 21)(x, per_channel, per_channel, num_groups=3)
    b16 = kernel("GroupNormalization", 21)(x.astype(np.float16), per_channel.astype(np.float16),
                                           np.zeros(4, np.float16), num_groups=4, stash_type=TensorProto.BFLOAT16)
    assert b16.dtype == np.float16


@pytest.mark.parametrize("version", [1, 6, 22])
def test_instance_normalization(version: int) -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    scale, b = np.array([1.0, 2.0, 3.0], np.float32), np.array([0.0, 1.0, -1.0], np.float32)
    got = kernel("InstanceNormalization", version)(x, scale, b, epsilon=1e-2)
    xd = x.astype(np.float64)
    mean, var = xd.mean(axis=(2, 3), keepdims=True), xd.var(axis=(2, 3), keepdims=True)
    want = (xd - mean) / np.sqrt(var + 1e-2) * scale[:, None, None] + b[:, None, None]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_instance_normalization_rank_by_version() -> None:
    x = np.ones((1, 2, 3), np.float32)
    ones = np.ones(2, np.float32)
    assert kernel("InstanceNormalization", 6)(x, ones, ones).tolist() == [[[1.0] * 3] * 2]
    with pytest.raises(ValueError, match="4-D"):
        kernel("InstanceNormalization", 1)(x, ones, ones)


@pytest.mark.parametrize("version", [9, 13])
def test_mean_variance_normalization(version: int) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    got = kernel("MeanVarianceNormalization", version)(x, axes=[-1, 0])
    xd = x.astype(np.float64)
    mean = xd.mean(axis=(0, 3), keepdims=True)
    want = (xd - mean) / (np.sqrt(((xd - mean) ** 2).mean(axis=(0, 3), keepdims=True)) + 1e-9)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    constant = kernel("MeanVarianceNormalization", version)(np.full((1, 2, 2, 2), 3.0, np.float16))
    assert constant.dtype == np.float16 and not constant.any()
    with pytest.raises(ValueError, match="repeated axis"):
        kernel("MeanVarianceNormalization", version)(x, axes=[1, -3])
