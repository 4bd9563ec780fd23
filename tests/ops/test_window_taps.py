"""The window kernels read through ``_window_taps`` give the bits the strided views gave.

Depthwise Conv, MaxPool (values only), AveragePool and LpPool read their
windows as long runs of phase planes. Each kept output element must be computed
from the same elements in the same order as with the strided views of the padded
input (``WindowGeometry.window_slices``), which the reference functions below
still use: the outputs are compared byte for byte over random geometries (1 to
3 spatial axes, strides, dilations, explicit and automatic padding, ceil mode,
batches, channel multipliers), inputs with signed zeros, infinities and NaNs.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from sonnx.ops._separable_max import order_free, separable_maxima
from sonnx.ops._window_taps import WindowTaps
from sonnx.ops._windows import (
    WindowGeometry,
    pad_spatial,
    padded_for_windows,
    window_counts,
    window_geometry,
    window_view,
)
from sonnx.ops.op_average_pool import average_pool
from sonnx.ops.op_conv import conv
from sonnx.ops.op_max_pool import max_pool

LEAD = (slice(None), slice(None))


def strided_depthwise(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, geo: WindowGeometry) -> np.ndarray:
    mg = w.shape[0] // x.shape[1]
    xp = pad_spatial(x, geo.pad_begin, geo.pad_end, 0)
    if mg > 1:
        xp = np.repeat(xp, mg, axis=1)
    ones = (1,) * len(geo.out)
    y = np.zeros((x.shape[0], w.shape[0], *geo.out), dtype=x.dtype)
    taps = w.reshape(w.shape[0], -1)
    for i, off in enumerate(geo.offsets()):
        y += taps[:, i].reshape(-1, *ones) * xp[LEAD + geo.window_slices(off)]
    if b is not None:
        y += b.reshape(-1, *ones)
    return y


def strided_maxima(x: np.ndarray, geo: WindowGeometry) -> np.ndarray:
    xp = padded_for_windows(x, geo, -np.inf)
    taps = [xp[LEAD + geo.window_slices(off)] for off in geo.offsets()]
    best = taps[0].copy()
    for tap in taps[1:]:
        np.maximum(best, tap, out=best)
    return best


def strided_sums(x: np.ndarray, geo: WindowGeometry) -> np.ndarray:
    xp = padded_for_windows(x, geo, 0)
    total = np.zeros(x.shape[:2] + geo.out, dtype=x.dtype)
    for off in geo.offsets():
        total += xp[LEAD + geo.window_slices(off)]
    return total


def random_case(rng: np.random.Generator) -> tuple[np.ndarray, dict[str, object]]:
    nsp = int(rng.integers(1, 4))
    kernel = [int(k) for k in rng.integers(1, 4, nsp)]
    strides = [int(s) for s in rng.integers(1, 4, nsp)]
    dilations = [int(d) for d in rng.integers(1, 3, nsp)]
    spatial = [int(rng.integers((k - 1) * d + 1, (k - 1) * d + 9)) for k, d in zip(kernel, dilations, strict=True)]
    x = rng.standard_normal((int(rng.integers(1, 3)), int(rng.integers(1, 6)), *spatial)).astype(np.float32)
    # signed zeros, infinities and NaNs where a reordering or a wrong element would show
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=min(flat.size, 6), replace=False)
    flat[picks] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -0.0], dtype=np.float32)[: picks.size]
    attrs: dict[str, object] = {"kernel_shape": kernel, "strides": strides, "dilations": dilations}
    mode = rng.choice(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
    if mode == "NOTSET":
        extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)] * 2
        attrs["pads"] = [int(rng.integers(0, min(3, e))) for e in extents]  # a window never holds padding only
    else:
        attrs["auto_pad"] = str(mode)
    return x, attrs


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", range(60))
def test_depthwise_conv_bits(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, attrs = random_case(rng)
    c = x.shape[1]
    mg = int(rng.integers(1, 3))
    w = rng.standard_normal((c * mg, 1, *attrs["kernel_shape"])).astype(np.float32)  # type: ignore[misc]
    w.reshape(-1)[0] = -0.0
    b = rng.standard_normal(c * mg).astype(np.float32) if seed % 2 else None
    geo = window_geometry(x.shape[2:], w.shape[2:], **attrs)
    with np.errstate(all="ignore"):
        got = conv(x, w, b, group=c, **attrs)
        want = strided_depthwise(x, w, b, geo)
    assert same_bits(got, want)
    assert got.flags.c_contiguous


@pytest.mark.parametrize("seed", range(60))
def test_pools_bits(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    x, attrs = random_case(rng)
    kernel = attrs.pop("kernel_shape")
    ceil_mode = int(seed % 3 == 0 and "auto_pad" not in attrs)
    geo = window_geometry(x.shape[2:], kernel, ceil_mode, **attrs)  # type: ignore[arg-type]
    with np.errstate(all="ignore"):
        want_max = strided_maxima(x, geo)
        want_sum = strided_sums(x, geo)
        got_max = max_pool(x, kernel_shape=kernel, ceil_mode=ceil_mode, output_count=1, **attrs)
        got_avg = average_pool(x, kernel_shape=kernel, ceil_mode=ceil_mode, count_include_pad=1, **attrs)
    assert isinstance(got_max, np.ndarray)
    assert same_bits(got_max, want_max)
    with np.errstate(all="ignore"):
        want_avg = want_sum / window_counts(geo, x.shape[2:], True).astype(np.float32)
    assert same_bits(got_avg, want_avg)


def test_taps_are_the_window_elements() -> None:
    """Each run holds, at every kept position, the element the strided view holds (checked on the index grid)."""
    x = np.arange(2 * 3 * 7 * 9, dtype=np.float64).reshape(2, 3, 7, 9)
    for strides, dilations, pads in itertools.product(([1, 1], [2, 3]), ([1, 1], [2, 1]), ([0] * 4, [1, 2, 0, 1])):
        geo = window_geometry(x.shape[2:], [3, 2], strides=strides, dilations=dilations, pads=pads)
        xp = padded_for_windows(x, geo, -1.0)
        windows = WindowTaps(x, geo, -1.0)
        for off, tap in zip(geo.offsets(), windows.taps(), strict=True):
            assert tap.shape == (2, 3, windows.length)
            np.testing.assert_array_equal(windows.crop(tap), xp[LEAD + geo.window_slices(off)])


def order_free_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Values with many ties (+0 among them), infinities and subnormals, but no NaN and no -0."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, shape).astype(dtype) // 64 * 64
    x = np.round(rng.standard_normal(shape) * 2).astype(dtype)  # few distinct values: ties in most windows
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=min(flat.size, 5), replace=False)
    tiny = np.finfo(dtype).smallest_subnormal
    flat[picks] = np.array([np.inf, -np.inf, tiny, -tiny, 0.0], dtype=dtype)[: picks.size]
    flat[flat == 0] = 0.0  # np.round gives -0 for small negatives: the fast path is for inputs without -0
    return x


@pytest.mark.parametrize("seed", range(60))
def test_separable_maxima_bits(seed: int) -> None:
    """Without NaN and -0, the axis-by-axis maxima are the row-major fold's, bit for bit, in every MaxPool type."""
    rng = np.random.default_rng(2000 + seed)
    shape_source, attrs = random_case(rng)
    dtype = np.dtype(["float32", "float16", "float64", "int8", "uint8", "int32"][seed % 6])
    x = order_free_values(rng, shape_source.shape, dtype)
    kernel = attrs.pop("kernel_shape")
    ceil_mode = int(seed % 3 == 0 and "auto_pad" not in attrs)
    geo = window_geometry(x.shape[2:], kernel, ceil_mode, **attrs)  # type: ignore[arg-type]
    lowest = np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf
    xp = padded_for_windows(x, geo, lowest)
    taps = [xp[LEAD + geo.window_slices(off)] for off in geo.offsets()]
    want = taps[0].copy()
    for tap in taps[1:]:
        np.maximum(want, tap, out=want)
    got = separable_maxima(x, geo, lowest)
    assert got is not None
    assert same_bits(got, want)
    assert got.flags.c_contiguous and not np.shares_memory(got, x)
    got_kernel = max_pool(x, kernel_shape=kernel, ceil_mode=ceil_mode, output_count=1, **attrs)
    assert isinstance(got_kernel, np.ndarray) and same_bits(got_kernel, want)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_separable_maxima_declines_nan_and_negative_zero(dtype: str) -> None:
    """A NaN or a -0 anywhere leaves the maxima to the row-major fold; +0, infinities and subnormals do not."""
    x = np.zeros((1, 2, 4, 4), dtype=dtype)
    x[0, 1, 3, 3] = np.finfo(dtype).smallest_subnormal
    x[0, 0, 0, 0] = -np.inf
    assert order_free(x)
    for odd in (np.nan, -0.0, -np.nan):
        y = x.copy()
        y[0, 1, 2, 1] = odd
        assert not order_free(y)
        assert separable_maxima(y, window_geometry(y.shape[2:], [2, 2]), -np.inf) is None
    assert order_free(np.array([-3, 0, 5], dtype=np.int8))
    assert order_free(np.zeros(0, dtype=np.float32))



@pytest.mark.parametrize("seed", range(6))
def test_max_pool_of_signed_zeros_is_the_fold(seed: int) -> None:
    """Windows whose maximum is zero, held as +0 and -0 (and NaNs): the order of np.maximum's operands decides."""
    rng = np.random.default_rng(3000 + seed)
    x = rng.choice(np.array([0.0, -0.0, -1.0], dtype=np.float32), size=(2, 3, 37, 41), p=[0.15, 0.15, 0.7])
    if seed % 2:
        x.reshape(-1)[rng.choice(x.size, 9, replace=False)] = np.float32(np.nan)
        x.reshape(-1)[rng.choice(x.size, 9, replace=False)] = -np.float32(np.nan)
    for kernel, strides in (([3, 3], [2, 2]), ([2, 3], [1, 1]), ([3, 2], [1, 2])):
        geo = window_geometry(x.shape[2:], kernel, 1, strides=strides)
        got = max_pool(x, kernel_shape=kernel, strides=strides, ceil_mode=1, output_count=1)
        assert isinstance(got, np.ndarray) and same_bits(got, strided_maxima(x, geo))


@pytest.mark.parametrize("seed", range(30))
def test_tap_grids_are_the_taps(seed: int) -> None:
    """Grouped by phase plane, the runs are those of ``taps``, offset by offset, each offset in one grid only."""
    rng = np.random.default_rng(4000 + seed)
    x, attrs = random_case(rng)
    kernel = attrs.pop("kernel_shape")
    geo = window_geometry(x.shape[2:], kernel, **attrs)  # type: ignore[arg-type]
    windows = WindowTaps(x, geo, 0)
    taps = np.stack(list(windows.taps()), axis=2).reshape(*x.shape[:2], *geo.kernel, windows.length)
    seen = np.zeros(geo.kernel, dtype=int)
    for index, runs in windows.tap_grids():
        assert not runs.flags.writeable
        assert same_bits(np.ascontiguousarray(runs), np.ascontiguousarray(taps[LEAD + index]))
        seen[index] += 1
    assert (seen == 1).all()


def special_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Normal values with NaN, infinities, signed zeros and subnormals scattered in."""
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    tiny = np.finfo(dtype).smallest_subnormal
    odd = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, tiny * 3], dtype=dtype)
    picks = rng.choice(flat.size, size=min(flat.size, 3 * odd.size), replace=False)
    flat[picks] = np.resize(odd, picks.size)
    return x


def same_bits_but_nan_signs(a: np.ndarray, b: np.ndarray) -> bool:
    """Same bits everywhere, except that a NaN may carry either sign.

    Which operand's NaN an addition of two NaNs returns is the processor's
    choice (x86 returns the first operand's), and a compiler may commute the
    operands of a float addition in one of NumPy's loops and not in another, so
    NaN signs follow the memory alignment of the buffers, even for one kernel.
    """
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan = np.isnan(a)
    return bool((nan == np.isnan(b)).all()) and a[~nan].tobytes() == b[~nan].tobytes()


def conv_per_offset(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, **attrs: Any) -> np.ndarray:
    """``conv`` with the depthwise kernel held to its per-offset form (a multiply and an add per kernel offset)."""
    from sonnx.ops import op_conv

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(op_conv, "FUSED_LIMIT", 0)
        return conv(x, w, b, **attrs)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_depthwise_conv_bits_with_special_values(dtype: type) -> None:
    """The fused form gives the per-offset form's bits (but NaN signs), with NaN, infinities, signed zeros and
    subnormals, batches of two, channel multipliers."""
    rng = np.random.default_rng(1 << 18)
    for spatial, kernel, attrs in (
        ((13, 11), (3, 3), {"pads": [1, 1, 1, 1]}),
        ((14, 15), (5, 5), {"strides": [2, 2], "pads": [2, 2, 2, 2]}),
        ((9, 8), (3, 2), {"strides": [2, 1], "dilations": [1, 2], "auto_pad": "SAME_UPPER"}),
        ((11, 12), (3, 3), {"strides": [2, 2], "dilations": [2, 2]}),  # strided, but one phase plane
        ((17,), (3,), {}),  # runs of 15: one grid
        ((3,), (3,), {}),  # a run of one element: a multiply and an add per offset
    ):
        x = special_values(rng, (2, 3, *spatial), dtype)
        w = special_values(rng, (6, 1, *kernel), dtype)
        b = rng.standard_normal(6).astype(dtype)
        with np.errstate(all="ignore"):
            got = conv(x, w, b, group=3, kernel_shape=list(kernel), **attrs)
            want = conv_per_offset(x, w, b, group=3, kernel_shape=list(kernel), **attrs)
        assert same_bits_but_nan_signs(got, want), (spatial, kernel, attrs)


def test_depthwise_conv_sum_of_negative_zeros_is_positive_zero() -> None:
    """Every product -0: the sum from zero is +0 (0 + -0), never the -0 a sum starting at the first product gives."""
    x = np.zeros((1, 3, 6, 6), dtype=np.float32)
    w = -np.ones((3, 1, 3, 3), dtype=np.float32)
    got = conv(x, w, None, group=3, kernel_shape=[3, 3])
    assert got.shape == (1, 3, 4, 4)
    assert not np.signbit(got).any()
    x[0, 1] = -0.0
    w[1] = 1.0
    got = conv(x, w, None, group=3, kernel_shape=[3, 3])
    assert not np.signbit(got).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_depthwise_conv_of_one_output_element_adds_offset_by_offset(dtype: type) -> None:
    """An output of one element: summed one offset at a time, as the former form did.

    (A reduce over the kernel axis would then be a reduce over the innermost
    axis, which NumPy sums in blocks of eight: other roundings.)
    """
    rng = np.random.default_rng(5)
    for lead in ((1, 1), (2, 3)):
        x = (rng.standard_normal((*lead, 40)) * 10.0 ** rng.integers(-3, 4, (*lead, 40))).astype(dtype)
        w = rng.standard_normal((lead[1], 1, 40)).astype(dtype)
        got = conv(x, w, None, group=lead[1], kernel_shape=[40])
        assert got.shape == (*lead, 1)
        assert same_bits(got, conv_per_offset(x, w, None, group=lead[1], kernel_shape=[40]))


def conv_with_sliced_gather(x: np.ndarray, w: np.ndarray, group: int, geo: WindowGeometry) -> np.ndarray:
    """The former im2col Conv (no bias): the padded input gathered one kernel offset at a time."""
    xp = pad_spatial(x, geo.pad_begin, geo.pad_end, 0)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    ksize = int(np.prod(geo.kernel))
    buf = np.empty((n, c, ksize, *geo.out), dtype=x.dtype)
    for i, off in enumerate(geo.offsets()):
        buf[:, :, i] = xp[LEAD + geo.window_slices(off)]
    cols = buf.reshape(n, group, cg * ksize, -1)
    y = np.matmul(w.reshape(group, m // group, cg * ksize), cols)
    return y.reshape(n, m, *geo.out)


@pytest.mark.parametrize("seed", range(40))
def test_conv_gathered_in_one_copy_bits(seed: int) -> None:
    """The one-copy gather of every kernel offset (``window_view``) gives the former Conv's bits."""
    rng = np.random.default_rng(5000 + seed)
    x, attrs = random_case(rng)
    group = 1 if seed % 2 else x.shape[1]
    if group > 1:  # several input channels per group, so that the im2col form runs
        x = np.repeat(x, 2, axis=1)
    w = special_values(rng, (2 * group, x.shape[1] // group, *attrs["kernel_shape"]), np.float32)  # type: ignore[misc]
    geo = window_geometry(x.shape[2:], w.shape[2:], **attrs)
    with np.errstate(all="ignore"):
        got = conv(x, w, None, group=group, **attrs)
        want = conv_with_sliced_gather(x, w, group, geo)
    assert same_bits_but_nan_signs(got, want)


def test_window_view_holds_the_window_elements() -> None:
    x = np.arange(2 * 3 * 9 * 8, dtype=np.float64).reshape(2, 3, 9, 8)
    geo = window_geometry(x.shape[2:], [3, 2], strides=[2, 1], dilations=[1, 3], pads=[1, 0, 2, 1])
    xp = pad_spatial(x, geo.pad_begin, geo.pad_end, 0)
    view = window_view(xp, geo)
    assert view.shape == (2, 3, 3, 2, *geo.out) and not view.flags.writeable
    for off in geo.offsets():
        np.testing.assert_array_equal(view[LEAD + off], xp[LEAD + geo.window_slices(off)])


@pytest.mark.parametrize("seed", range(40))
def test_max_pool_of_small_inputs_is_the_fold_over_runs(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small inputs fold over strided views: the bits of the large inputs' forms (runs, or separable)."""
    from sonnx.ops import op_max_pool

    rng = np.random.default_rng(6000 + seed)
    x, attrs = random_case(rng)
    if seed % 2:  # no NaN and no -0: the separable form would run
        x = order_free_values(rng, x.shape, np.dtype(np.float32))
    kernel = attrs.pop("kernel_shape")
    ceil_mode = int(seed % 3 == 0 and "auto_pad" not in attrs)
    with np.errstate(all="ignore"):
        small = max_pool(x, kernel_shape=kernel, ceil_mode=ceil_mode, output_count=1, **attrs)
        monkeypatch.setattr(op_max_pool, "SMALL", -1)
        large = max_pool(x, kernel_shape=kernel, ceil_mode=ceil_mode, output_count=1, **attrs)
    assert isinstance(small, np.ndarray) and isinstance(large, np.ndarray)
    assert same_bits(small, large)
    assert small.flags.c_contiguous and not np.shares_memory(small, x)
