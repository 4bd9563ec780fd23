"""Kernels of the neural-network operators, checked directly against naive references.

ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor.

The naive references below index the input by coordinates (bounds-checked, no
padding arrays, one output element at a time), unlike the kernels, which pad
and gather strided views; they are slow and meant for small shapes only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sonnx.ops.base import KernelRegistry
from sonnx.ops.catalog_nn import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)


def kernel(op: str, version: int) -> Any:
    return REGISTRY.lookup("", op, version)[0].fn


# --------------------------------------------------------------------------------------------- Conv


def _out_size(n: int, k: int, s: int, d: int, before: int, after: int) -> int:
    return (n + before + after - d * (k - 1) - 1) // s + 1


def naive_conv(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    group: int,
) -> np.ndarray:
    n = x.shape[0]
    m, cg = w.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    kshape = w.shape[2:]
    out = tuple(_out_size(spatial[i], kshape[i], strides[i], dilations[i], pads[i], pads[r + i]) for i in range(r))
    y = np.zeros((n, m, *out), dtype=np.float64)
    mg = m // group
    for batch, fm in itertools.product(range(n), range(m)):
        g = fm // mg
        for o in itertools.product(*(range(v) for v in out)):
            total = 0.0 if b is None else float(b[fm])
            for ci in range(cg):
                for k in itertools.product(*(range(v) for v in kshape)):
                    pos = [o[i] * strides[i] + k[i] * dilations[i] - pads[i] for i in range(r)]
                    if all(0 <= pos[i] < spatial[i] for i in range(r)):
                        total += float(x[(batch, g * cg + ci, *pos)]) * float(w[(fm, ci, *k)])
            y[(batch, fm, *o)] = total
    return y


@st.composite
def conv_problems(draw: st.DrawFn) -> dict[str, Any]:
    r = draw(st.integers(1, 3))
    group = draw(st.integers(1, 3))
    cg = draw(st.integers(1, 2))
    mg = draw(st.integers(1, 2))
    n = draw(st.integers(1, 2))
    kshape = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    dilations = [draw(st.integers(1, 2)) for _ in range(r)]
    pads = [draw(st.integers(0, 2)) for _ in range(2 * r)]
    spatial = []
    for i in range(r):
        extent = dilations[i] * (kshape[i] - 1) + 1
        low = max(1, extent - pads[i] - pads[r + i])
        spatial.append(draw(st.integers(low, low + (5 if r < 3 else 2))))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, group * cg, *spatial)).astype(np.float32)
    w = rng.standard_normal((group * mg, cg, *kshape)).astype(np.float32)
    b = rng.standard_normal(group * mg).astype(np.float32) if draw(st.booleans()) else None
    return dict(x=x, w=w, b=b, strides=strides, dilations=dilations, pads=pads, group=group)


@settings(max_examples=40)
@given(conv_problems())
def test_conv_matches_naive_reference(p: dict[str, Any]) -> None:
    want = naive_conv(p["x"], p["w"], p["b"], p["strides"], p["dilations"], p["pads"], p["group"])
    got = kernel("Conv", 22)(
        p["x"], p["w"], p["b"], strides=p["strides"], dilations=p["dilations"], pads=p["pads"], group=p["group"]
    )
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("version", [1, 11, 22])
def test_conv_depthwise_with_multiplier(version: int) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((8, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    got = kernel("Conv", version)(x, w, b, group=4, pads=[1, 1, 1, 1], strides=[2, 1])
    np.testing.assert_allclose(got, naive_conv(x, w, b, [2, 1], [1, 1], [1, 1, 1, 1], 4), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
@pytest.mark.parametrize("size,kernel_size,stride", [(7, 3, 2), (8, 4, 3), (5, 2, 1), (6, 1, 4)])
def test_conv_auto_pad(auto_pad: str, size: int, kernel_size: int, stride: int) -> None:
    rng = np.random.default_rng(size * 100 + kernel_size * 10 + stride)
    x = rng.standard_normal((1, 2, size, size + 1)).astype(np.float32)
    w = rng.standard_normal((3, 2, kernel_size, kernel_size)).astype(np.float32)
    pads = []
    for n in (size, size + 1):
        if auto_pad == "VALID":
            pads.append((0, 0))
            continue
        out = -(-n // stride)
        total = max((out - 1) * stride + kernel_size - n, 0)
        low = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        pads.append((low, total - low))
    explicit = [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
    want = naive_conv(x, w, None, [stride, stride], [1, 1], explicit, 1)
    got = kernel("Conv", 11)(x, w, auto_pad=auto_pad, strides=[stride, stride])
    if auto_pad != "VALID":
        assert got.shape[2:] == (-(-size // stride), -(-(size + 1) // stride))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv_float16_keeps_its_type() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 3, 5, 5)).astype(np.float16)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float16)
    got = kernel("Conv", 22)(x, w)
    assert got.dtype == np.float16
    want = naive_conv(x.astype(np.float32), w.astype(np.float32), None, [1, 1], [1, 1], [0] * 4, 1)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(
    "attrs",
    [
        {"group": 2},  # 3 channels in 2 groups
        {"kernel_shape": [2, 2]},  # W is 3x3
        {"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]},
        {"pads": [1, 1]},
        {"strides": [0, 1]},
        {"auto_pad": "SAME"},
    ],
)
def test_conv_refuses_inconsistent_attributes(attrs: dict[str, Any]) -> None:
    x = np.zeros((1, 3, 5, 5), np.float32)
    w = np.zeros((2, 3, 3, 3), np.float32)
    with pytest.raises(ValueError):
        kernel("Conv", 22)(x, w, **attrs)


def test_conv_refuses_a_window_larger_than_the_input() -> None:
    with pytest.raises(ValueError):
        kernel("Conv", 22)(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 3, 3), np.float32))


# --------------------------------------------------------------------------------------------- pooling


def _pool_out(n: int, k: int, s: int, d: int, before: int, after: int, ceil_mode: bool) -> int:
    span = n + before + after - d * (k - 1) - 1
    if not ceil_mode:
        return span // s + 1
    out = -(-span // s) + 1
    return out - 1 if (out - 1) * s >= n + before else out


def naive_pool(
    x: np.ndarray,
    kshape: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    ceil_mode: bool,
    how: str,
    count_include_pad: bool = False,
    storage_order: int = 0,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Pooled values and (for "max") row- or column-major flat indices, one output element at a time.

    None when some window has nothing to pool (no input element, or for "avg" no counted element).
    """
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    out = tuple(
        _pool_out(spatial[i], kshape[i], strides[i], dilations[i], pads[i], pads[r + i], ceil_mode) for i in range(r)
    )
    y = np.zeros((n, c, *out), dtype=np.float64)
    idx = np.zeros((n, c, *out), dtype=np.int64)
    for batch, ch in itertools.product(range(n), range(c)):
        for o in itertools.product(*(range(v) for v in out)):
            best, best_at, total, count = -np.inf, None, 0.0, 0
            for k in itertools.product(*(range(v) for v in kshape)):
                pos = [o[i] * strides[i] + k[i] * dilations[i] - pads[i] for i in range(r)]
                inside = all(0 <= pos[i] < spatial[i] for i in range(r))
                in_pads = all(-pads[i] <= pos[i] < spatial[i] + pads[r + i] for i in range(r))
                if inside:
                    v = float(x[(batch, ch, *pos)])
                    total += v
                    count += 1
                    if v > best:
                        best, best_at = v, pos
                elif in_pads and count_include_pad:
                    count += 1
            if count == 0 or (how == "max" and best_at is None):
                return None
            if how == "max":
                assert best_at is not None
                y[(batch, ch, *o)] = best
                order = range(r - 1, -1, -1) if storage_order else range(r)
                flat = 0
                for i in order:
                    flat = flat * spatial[i] + best_at[i]
                idx[(batch, ch, *o)] = (batch * c + ch) * int(np.prod(spatial)) + flat
            else:
                y[(batch, ch, *o)] = total / count
    return y, idx


@st.composite
def pool_problems(draw: st.DrawFn) -> dict[str, Any]:
    r = draw(st.integers(1, 3))
    kshape = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    dilations = [draw(st.integers(1, 2)) for _ in range(r)]
    pads = [draw(st.integers(0, k - 1)) for k in kshape] * 2  # pads smaller than the kernel
    pads = pads[:r] + [draw(st.integers(0, k - 1)) for k in kshape]
    spatial = []
    for i in range(r):
        extent = dilations[i] * (kshape[i] - 1) + 1
        low = max(1, extent - pads[i] - pads[r + i])
        spatial.append(draw(st.integers(low, low + (5 if r < 3 else 2))))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    # Few distinct values, so that windows have ties and the first-maximum rule is exercised.
    x = rng.integers(-3, 4, size=(draw(st.integers(1, 2)), draw(st.integers(1, 3)), *spatial)).astype(np.float32)
    return dict(
        x=x,
        kshape=kshape,
        strides=strides,
        dilations=dilations,
        pads=pads,
        ceil_mode=draw(st.booleans()),
        count_include_pad=draw(st.booleans()),
        storage_order=draw(st.integers(0, 1)),
    )


@settings(max_examples=60)
@given(pool_problems())
def test_max_pool_values_and_indices_match_naive_reference(p: dict[str, Any]) -> None:
    want = naive_pool(
        p["x"], p["kshape"], p["strides"], p["dilations"], p["pads"], p["ceil_mode"], "max",
        storage_order=p["storage_order"],
    )  # fmt: skip
    attrs = dict(
        kernel_shape=p["kshape"],
        strides=p["strides"],
        dilations=p["dilations"],
        pads=p["pads"],
        ceil_mode=int(p["ceil_mode"]),
        storage_order=p["storage_order"],
    )
    if want is None:
        with pytest.raises(ValueError, match="padding only"):
            kernel("MaxPool", 22)(p["x"], **attrs)
        return
    want_y, want_i = want
    y, indices = kernel("MaxPool", 22)(p["x"], **attrs)
    assert y.dtype == np.float32 and indices.dtype == np.int64
    np.testing.assert_array_equal(y, want_y.astype(np.float32))
    np.testing.assert_array_equal(indices, want_i)
    if p["storage_order"] == 0:
        np.testing.assert_array_equal(p["x"].reshape(-1)[indices], y)


@settings(max_examples=60)
@given(pool_problems())
def test_average_pool_matches_naive_reference(p: dict[str, Any]) -> None:
    want = naive_pool(
        p["x"], p["kshape"], p["strides"], p["dilations"], p["pads"], p["ceil_mode"], "avg",
        count_include_pad=p["count_include_pad"],
    )  # fmt: skip
    attrs = dict(
        kernel_shape=p["kshape"],
        strides=p["strides"],
        dilations=p["dilations"],
        pads=p["pads"],
        ceil_mode=int(p["ceil_mode"]),
        count_include_pad=int(p["count_include_pad"]),
    )
    if want is None:
        with pytest.raises(ValueError, match="no counted element"):
            kernel("AveragePool", 22)(p["x"], **attrs)
        return
    got = kernel("AveragePool", 22)(p["x"], **attrs)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want[0], rtol=1e-5, atol=1e-6)


def test_max_pool_v1_gives_one_output_and_v8_two() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    y1 = kernel("MaxPool", 1)(x, kernel_shape=[2, 2], strides=[2, 2])
    assert isinstance(y1, np.ndarray)
    np.testing.assert_array_equal(y1, [[[[5, 7], [13, 15]]]])
    y8, i8 = kernel("MaxPool", 8)(x, kernel_shape=[2, 2], strides=[2, 2], storage_order=1)
    np.testing.assert_array_equal(y8, y1)
    np.testing.assert_array_equal(i8, [[[[5, 13], [7, 15]]]])  # column-major: h + w * H


def test_max_pool_skips_indices_when_only_y_is_named() -> None:
    x = np.random.default_rng(8).standard_normal((1, 2, 5, 5)).astype(np.float32)
    y_only = kernel("MaxPool", 22)(x, kernel_shape=[3, 3], strides=[2, 2], output_count=1)
    assert isinstance(y_only, np.ndarray)
    y, _ = kernel("MaxPool", 22)(x, kernel_shape=[3, 3], strides=[2, 2], output_count=2)
    np.testing.assert_array_equal(y_only, y)


def test_max_pool_integer_types_and_nan() -> None:
    x = np.array([[[[1, 200], [7, 3]]]], dtype=np.uint8)
    y, i = kernel("MaxPool", 12)(x, kernel_shape=[2, 2], pads=[1, 1, 0, 0])
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, [[[[1, 200], [7, 200]]]])
    np.testing.assert_array_equal(i, [[[[0, 1], [2, 1]]]])
    z = np.array([[[[1.0, np.nan, 3.0, np.nan]]]], dtype=np.float32)
    y, i = kernel("MaxPool", 22)(z, kernel_shape=[1, 2])
    assert np.isnan(y).all()
    np.testing.assert_array_equal(i, [[[[1, 1, 3]]]])


@pytest.mark.parametrize("version", [1, 7, 10, 11, 19, 22])
def test_average_pool_every_version(version: int) -> None:
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    got = kernel("AveragePool", version)(x, kernel_shape=[2, 2], pads=[1, 1, 0, 0])
    np.testing.assert_allclose(got, [[[[1, 1.5, 2.5], [2.5, 3, 4], [5.5, 6, 7]]]])  # padding not counted by default


@pytest.mark.parametrize("op,version", [("AveragePool", 10), ("AveragePool", 19), ("MaxPool", 10), ("MaxPool", 22)])
def test_ceil_mode_drops_a_window_starting_in_the_end_padding(op: str, version: int) -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    got = kernel(op, version)(x, kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1)
    y = got[0] if isinstance(got, tuple) else got
    assert y.shape == (1, 1, 2, 2)  # ceil((4 + 1 - 2) / 2) + 1 = 3 windows, the third starting at 4 (padding)
    got = kernel(op, version)(x, kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=0)
    assert (got[0] if isinstance(got, tuple) else got).shape == (1, 1, 2, 2)
    x5 = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    got = kernel(op, version)(x5, kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    assert (got[0] if isinstance(got, tuple) else got).shape == (1, 1, 3, 3)  # the third window starts in the input


@pytest.mark.parametrize("version", [1, 22])
def test_global_pools(version: int) -> None:
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 2)).astype(np.float32)
    avg = kernel("GlobalAveragePool", version)(x)
    mx = kernel("GlobalMaxPool", version)(x)
    assert avg.shape == mx.shape == (2, 3, 1, 1, 1)
    for bi, ci in itertools.product(range(2), range(3)):
        assert mx[bi, ci, 0, 0, 0] == max(x[bi, ci].ravel().tolist())
        assert abs(avg[bi, ci, 0, 0, 0] - sum(x[bi, ci].ravel().tolist()) / 40) < 1e-5


# --------------------------------------------------------------------------------------------- BatchNormalization


def _bn_parameters(c: int) -> list[np.ndarray]:
    rng = np.random.default_rng(c)
    return [
        rng.standard_normal(c).astype(np.float32),
        rng.standard_normal(c).astype(np.float32),
        rng.standard_normal(c).astype(np.float32),
        rng.uniform(0.5, 2.0, c).astype(np.float32),
    ]


def _bn_formula(x: np.ndarray, s: np.ndarray, b: np.ndarray, m: np.ndarray, v: np.ndarray, eps: float) -> np.ndarray:
    y = np.empty(x.shape, dtype=np.float64)
    for ci in range(x.shape[1]):
        y[:, ci] = s[ci] * (x[:, ci].astype(np.float64) - m[ci]) / np.sqrt(float(v[ci]) + eps) + b[ci]
    return y


@pytest.mark.parametrize(
    "version,attrs", [(1, {"is_test": 1}), (6, {"is_test": 1}), (7, {}), (9, {}), (14, {}), (15, {})]
)
def test_batch_normalization_inference(version: int, attrs: dict[str, Any]) -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    s, b, m, v = _bn_parameters(3)
    got = kernel("BatchNormalization", version)(x, s, b, m, v, epsilon=1e-3, **attrs)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, _bn_formula(x, s, b, m, v, 1e-3), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "version,attrs", [(1, {"is_test": 0}), (6, {"is_test": 0}), (7, {"output_count": 5}), (9, {"output_count": 3})]
)
def test_batch_normalization_training_mode_before_14_is_refused(version: int, attrs: dict[str, Any]) -> None:
    x = np.zeros((1, 3, 2, 2), np.float32)
    with pytest.raises(ValueError, match="test mode"):
        kernel("BatchNormalization", version)(x, *_bn_parameters(3), **attrs)


@pytest.mark.parametrize("version,attrs", [(6, {"is_test": 1}), (7, {})])
def test_batch_normalization_per_activation(version: int, attrs: dict[str, Any]) -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s, b, m = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3))
    v = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    got = kernel("BatchNormalization", version)(x, s, b, m, v, spatial=0, **attrs)
    np.testing.assert_allclose(got, s * (x - m) / np.sqrt(v + 1e-5) + b, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        kernel("BatchNormalization", version)(x, *_bn_parameters(3), spatial=0, **attrs)


@pytest.mark.parametrize("version", [14, 15])
def test_batch_normalization_training_mode(version: int) -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 2, 5)).astype(np.float32)
    s, b, m, v = _bn_parameters(2)
    y, rm, rv = kernel("BatchNormalization", version)(x, s, b, m, v, training_mode=1, momentum=0.8, epsilon=1e-2)
    for ci in range(2):
        values = x[:, ci].astype(np.float64).ravel()
        mean = values.sum() / values.size
        var = ((values - mean) ** 2).sum() / values.size
        np.testing.assert_allclose(
            y[:, ci], (x[:, ci] - mean) / np.sqrt(var + 1e-2) * s[ci] + b[ci], rtol=1e-5, atol=1e-5
        )
        np.testing.assert_allclose(rm[ci], 0.8 * m[ci] + 0.2 * mean, rtol=1e-5)
        np.testing.assert_allclose(rv[ci], 0.8 * v[ci] + 0.2 * var, rtol=1e-5)


# --------------------------------------------------------------------------------------------- LRN


@pytest.mark.parametrize("version", [1, 13])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_lrn_matches_definition(version: int, size: int) -> None:
    x = np.random.default_rng(size).standard_normal((2, 5, 3)).astype(np.float32)
    alpha, beta, bias = 0.02, 0.6, 1.5
    got = kernel("LRN", version)(x, size=size, alpha=alpha, beta=beta, bias=bias)
    want = np.empty(x.shape, np.float64)
    c = x.shape[1]
    for ci in range(c):
        lo = max(0, ci - (size - 1) // 2)
        hi = min(c - 1, ci + -(-(size - 1) // 2))
        square_sum = sum(x[:, j].astype(np.float64) ** 2 for j in range(lo, hi + 1))
        want[:, ci] = x[:, ci] / (bias + alpha / size * square_sum) ** beta
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------------------------- Pad

DATA = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype=np.float32)


def f32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def test_pad_operator_text_examples() -> None:
    pad = kernel("Pad", 25)
    pads = np.array([0, 2, 0, 0], np.int64)
    np.testing.assert_array_equal(
        pad(DATA, pads, np.array(0.0, np.float32), mode="constant"),
        f32([[0, 0, 1.0, 1.2], [0, 0, 2.3, 3.4], [0, 0, 4.5, 5.7]]),
    )
    np.testing.assert_array_equal(
        pad(DATA, pads, mode="reflect"), f32([[1.0, 1.2, 1.0, 1.2], [2.3, 3.4, 2.3, 3.4], [4.5, 5.7, 4.5, 5.7]])
    )
    np.testing.assert_array_equal(
        pad(DATA, pads, mode="edge"), f32([[1.0, 1.0, 1.0, 1.2], [2.3, 2.3, 2.3, 3.4], [4.5, 4.5, 4.5, 5.7]])
    )
    wrapped = pad(DATA, np.array([2, 1, 1, 1], np.int64), mode="wrap")
    want = [[3.4, 2.3, 3.4, 2.3], [5.7, 4.5, 5.7, 4.5], [1.2, 1.0, 1.2, 1.0]] * 2
    np.testing.assert_array_equal(wrapped, np.array(want, np.float32))


def test_pad_versions_1_and_2_use_attributes() -> None:
    got1 = kernel("Pad", 1)(DATA, paddings=[1, 0, 0, 1], value=9.0)
    np.testing.assert_array_equal(got1, f32([[9, 9, 9], [1.0, 1.2, 9], [2.3, 3.4, 9], [4.5, 5.7, 9]]))
    with pytest.raises(ValueError):
        kernel("Pad", 1)(DATA, paddings=[-1, 0, 0, 0])
    got2 = kernel("Pad", 2)(DATA, pads=[-1, 1, 0, 0], mode="edge")
    np.testing.assert_array_equal(got2, f32([[2.3, 2.3, 3.4], [4.5, 4.5, 5.7]]))


@pytest.mark.parametrize("version", [11, 13])
def test_pad_inputs_and_default_constant(version: int) -> None:
    x = np.arange(4, dtype=np.int32).reshape(2, 2)
    got = kernel("Pad", version)(x, np.array([0, 1, 1, 0], np.int64))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [[0, 0, 1], [0, 2, 3], [0, 0, 0]])
    got = kernel("Pad", version)(x, np.array([0, 1, 1, 0], np.int64), np.array(7, np.int32))
    np.testing.assert_array_equal(got, [[7, 0, 1], [7, 2, 3], [7, 7, 7]])


def test_pad_axes_and_wrap_by_version() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = kernel("Pad", 18)(x, np.array([1, 2], np.int64), None, np.array([-1], np.int64), mode="reflect")
    np.testing.assert_array_equal(got, [[1, 0, 1, 2, 1, 0], [4, 3, 4, 5, 4, 3]])
    with pytest.raises(ValueError):
        kernel("Pad", 18)(x, np.array([1, 1], np.int64), None, np.array([0], np.int64), mode="wrap")
    with pytest.raises(ValueError):
        kernel("Pad", 18)(x, np.array([1, 1, 1, 1], np.int64), None, np.array([0, -2], np.int64))
    got = kernel("Pad", 19)(x, np.array([1, 1], np.int64), None, np.array([1], np.int64), mode="wrap")
    np.testing.assert_array_equal(got, [[2, 0, 1, 2, 0], [5, 3, 4, 5, 3]])


def test_pad_strings_and_refusals() -> None:
    s = np.array(["a", "b"], dtype=object)
    got = kernel("Pad", 25)(s, np.array([1, 0], np.int64))
    assert got.tolist() == ["", "a", "b"]
    with pytest.raises(ValueError):
        kernel("Pad", 25)(np.zeros((1, 3), np.float32), np.array([1, 0, 0, 0], np.int64), mode="reflect")
    with pytest.raises(ValueError):
        kernel("Pad", 25)(np.zeros((2,), np.float32), np.array([-2, -1], np.int64))
    with pytest.raises(ValueError):
        kernel("Pad", 25)(np.zeros((2,), np.float32), np.array([1, 1], np.int64), mode="symmetric")
