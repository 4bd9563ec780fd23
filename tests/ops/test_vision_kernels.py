"""Kernels of the vision operators: behaviour the ONNX backend node cases do not cover.

Version differences, refusals, element types, empty tensors and the choices
the operator texts leave to the implementation. Expected values are worked
out by hand in the comments.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from sonnx.ops.base import KernelRegistry
from sonnx.ops.catalog_vision import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)

F32 = np.float32


def kernel(op: str, version: int) -> Any:
    return REGISTRY.lookup("", op, version)[0].fn


def arr(values: Any, dtype: Any = F32) -> np.ndarray:
    return np.asarray(values, dtype=dtype)


# ------------------------------------------------------------------------------------------- Resize


def test_resize_10_nearest_ceils_when_downscaling_and_floors_when_upscaling() -> None:
    resize = kernel("Resize", 10)
    # 5 * 0.6 = 3 outputs at x = y / 0.6 = 0, 1.67, 3.33 -> ceil 0, 2, 4
    y = resize(arr([0, 1, 2, 3, 4]), arr([0.6]), mode="nearest")
    np.testing.assert_array_equal(y, arr([0, 2, 4]))
    y = resize(arr([1, 2, 3]), arr([2.0]), mode="nearest")
    np.testing.assert_array_equal(y, arr([1, 1, 2, 2, 3, 3]))


def test_resize_10_linear_uses_asymmetric_coordinates() -> None:
    # x = y / 2 = 0, 0.5, 1, 1.5 (the last clamps to the end)
    y = kernel("Resize", 10)(arr([0, 10]), arr([2.0]), mode="linear")
    np.testing.assert_array_equal(y, arr([0, 5, 10, 10]))
    assert y.dtype == F32


def test_resize_tf_half_pixel_for_nn_exists_only_in_version_11() -> None:
    x = arr([0, 10, 20, 30])
    empty = arr([])
    sizes = np.array([8], dtype=np.int64)
    # x = (y + 0.5) / 2 = 0.25, 0.75, 1.25, ... rounded half down, clamped to 3
    y = kernel("Resize", 11)(x, empty, empty, sizes, coordinate_transformation_mode="tf_half_pixel_for_nn")
    np.testing.assert_array_equal(y, arr([0, 10, 10, 20, 20, 30, 30, 30]))
    with pytest.raises(ValueError, match="coordinate_transformation_mode"):
        kernel("Resize", 13)(x, None, None, sizes, coordinate_transformation_mode="tf_half_pixel_for_nn")


def test_resize_half_pixel_symmetric_exists_from_version_19() -> None:
    x = arr([1, 2, 3, 4])
    scales = arr([0.6])
    symmetric = {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"}
    with pytest.raises(ValueError, match="coordinate_transformation_mode"):
        kernel("Resize", 18)(x, None, scales, None, **symmetric)
    # L = 2.4, 2 outputs: offset 2 * (1 - 2 / 2.4) = 1/3; x = 1/3 + (y + 0.5) / 0.6 - 0.5 = 2/3, 7/3
    y = kernel("Resize", 19)(x, None, scales, None, **symmetric)
    np.testing.assert_allclose(y, arr([5 / 3, 10 / 3]), rtol=1e-6)


def test_resize_axes_appear_in_version_18() -> None:
    x = arr([[1, 2], [3, 4]])
    y = kernel("Resize", 18)(x, None, arr([2.0]), None, axes=[-1])
    np.testing.assert_array_equal(y, arr([[1, 1, 2, 2], [3, 3, 4, 4]]))
    # before 18 the attribute does not exist: scales must cover every axis
    with pytest.raises(ValueError, match="scales has 1 values for 2 axes"):
        kernel("Resize", 13)(x, None, arr([2.0]), None, axes=[-1])


def test_resize_keeps_aspect_ratio_rounding_half_up() -> None:
    x = np.zeros((2, 4), dtype=F32)
    # not_larger: scale = min(3 / 2, 3 / 4) = 0.75 -> (round(1.5), round(3)) = (2, 3)
    y = kernel("Resize", 18)(x, None, None, np.array([3, 3], dtype=np.int64), keep_aspect_ratio_policy="not_larger")
    assert y.shape == (2, 3)
    y = kernel("Resize", 18)(x, None, None, np.array([3, 3], dtype=np.int64), keep_aspect_ratio_policy="not_smaller")
    assert y.shape == (3, 6)


def test_resize_integer_input_is_interpolated_then_rounded() -> None:
    # half_pixel x = -0.25, 0.25, 0.75, 1.25 -> 0, 63.75, 191.25, 255
    y = kernel("Resize", 19)(np.array([0, 255], dtype=np.uint8), None, arr([2.0]), None, mode="linear")
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y, np.array([0, 64, 191, 255], dtype=np.uint8))


def test_resize_nearest_works_for_strings_and_interpolation_refuses_them() -> None:
    x = np.array(["a", "b"])
    y = kernel("Resize", 19)(x, None, arr([2.0]), None, mode="nearest")
    np.testing.assert_array_equal(y, np.array(["a", "a", "b", "b"]))
    with pytest.raises(ValueError, match="not defined for"):
        kernel("Resize", 19)(x, None, arr([2.0]), None, mode="linear")


def test_resize_tf_crop_and_resize_output_length_includes_the_roi() -> None:
    # L = 5 * (0.75 - 0.25) * 2 = 5 outputs; x = 0.25 * 4 + y * 0.5 * 4 / 4 = 1, 1.5, 2, 2.5, 3
    y = kernel("Resize", 19)(
        arr([0, 1, 2, 3, 4]), arr([0.25, 0.75]), arr([2.0]), None,
        mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
    )
    np.testing.assert_allclose(y, arr([1, 1.5, 2, 2.5, 3]), rtol=1e-6)


def test_resize_pytorch_half_pixel_maps_a_single_output_to_coordinate_0() -> None:
    # cubic at x = 0 is exactly the first element (a shift to -0.5 would mix in the others)
    y = kernel("Resize", 19)(
        arr([0, 1, 2, 3]), None, None, np.array([1], dtype=np.int64),
        mode="cubic", coordinate_transformation_mode="pytorch_half_pixel",
    )
    np.testing.assert_array_equal(y, arr([0]))


def test_resize_needs_exactly_one_of_scales_and_sizes() -> None:
    x = arr([1, 2])
    with pytest.raises(ValueError, match="exactly one"):
        kernel("Resize", 13)(x, None, arr([2.0]), np.array([4], dtype=np.int64))
    with pytest.raises(ValueError, match="exactly one"):
        kernel("Resize", 13)(x, None, None, None)
    with pytest.raises(ValueError, match="positive"):
        kernel("Resize", 13)(x, None, arr([-1.0]), None)


def test_resize_to_and_from_empty_axes() -> None:
    y = kernel("Resize", 19)(arr([1, 2]), None, None, np.array([0], dtype=np.int64), mode="linear")
    assert y.shape == (0,) and y.dtype == F32
    with pytest.raises(ValueError, match="empty"):
        kernel("Resize", 19)(np.zeros((0,), F32), None, None, np.array([3], dtype=np.int64))


# ----------------------------------------------------------------------------------------- Upsample


def test_upsample_1_bilinear_on_the_last_two_axes() -> None:
    x = arr([[[[0, 10], [20, 30]]]])
    y = kernel("Upsample", 1)(x, height_scale=2.0, width_scale=2.0, mode="bilinear")
    want = arr([[[[0, 5, 10, 10], [10, 15, 20, 20], [20, 25, 30, 30], [20, 25, 30, 30]]]])
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match="4-D"):
        kernel("Upsample", 1)(arr([1, 2]), height_scale=2.0, width_scale=2.0)


def test_upsample_versions_take_scales_from_attribute_or_input() -> None:
    x = np.array([[1, 2]], dtype=np.int64)
    want = np.array([[1, 1, 1, 2, 2, 2]], dtype=np.int64)
    np.testing.assert_array_equal(kernel("Upsample", 7)(x, scales=[1.0, 3.0]), want)
    np.testing.assert_array_equal(kernel("Upsample", 9)(x, arr([1.0, 3.0])), want)
    np.testing.assert_array_equal(kernel("Upsample", 10)(x, arr([1.0, 3.0])), want)
    with pytest.raises(ValueError, match=">= 1"):
        kernel("Upsample", 9)(x, arr([1.0, 0.5]))
    with pytest.raises(ValueError, match="mode"):
        kernel("Upsample", 7)(x, scales=[1.0, 3.0], mode="bilinear")


# ----------------------------------------------------------------------------------------- RoiAlign

_IMAGE = np.arange(16, dtype=F32).reshape(1, 1, 4, 4)  # value = 4 * row + column
_ROI = arr([[0, 0, 2, 2]])
_BATCH = np.array([0], dtype=np.int64)


def test_roi_align_10_has_no_half_pixel_shift_and_16_defaults_to_it() -> None:
    # one sample at the bin centre: (1, 1) -> 5 without shift, (0.5, 0.5) -> 2.5 with it
    y10 = kernel("RoiAlign", 10)(_IMAGE, _ROI, _BATCH, sampling_ratio=1)
    y16 = kernel("RoiAlign", 16)(_IMAGE, _ROI, _BATCH, sampling_ratio=1)
    y16_legacy = kernel("RoiAlign", 16)(_IMAGE, _ROI, _BATCH, sampling_ratio=1,
                                        coordinate_transformation_mode="output_half_pixel")
    np.testing.assert_array_equal(y10, arr([[[[5]]]]))
    np.testing.assert_array_equal(y16, arr([[[[2.5]]]]))
    np.testing.assert_array_equal(y16_legacy, y10)


def test_roi_align_max_takes_the_largest_weighted_corner_term() -> None:
    # the sample (0.5, 0.5) has corners 0, 1, 4, 5 of weight 1/4 each: max(0, 0.25, 1, 1.25)
    y = kernel("RoiAlign", 22)(_IMAGE, _ROI, _BATCH, sampling_ratio=1, mode="max")
    np.testing.assert_array_equal(y, arr([[[[1.25]]]]))


def test_roi_align_keeps_the_element_type_and_checks_batch_indices() -> None:
    y = kernel("RoiAlign", 22)(_IMAGE.astype(np.float16), _ROI.astype(np.float16), _BATCH, sampling_ratio=1)
    assert y.dtype == np.float16 and y.shape == (1, 1, 1, 1)
    with pytest.raises(ValueError, match="batch_indices"):
        kernel("RoiAlign", 22)(_IMAGE, _ROI, np.array([1], dtype=np.int64))
    with pytest.raises(ValueError, match="mode"):
        kernel("RoiAlign", 22)(_IMAGE, _ROI, _BATCH, mode="sum")


def test_roi_align_without_regions() -> None:
    y = kernel("RoiAlign", 22)(_IMAGE, np.zeros((0, 4), F32), np.zeros((0,), np.int64), output_height=2)
    assert y.shape == (0, 1, 2, 1) and y.dtype == F32


# -------------------------------------------------------------------------------- NonMaxSuppression

_BOXES = arr([[[0, 0, 1, 1], [0, 0, 1, 1], [0, 5, 1, 6]]])


def test_nms_keeps_a_score_equal_to_the_threshold() -> None:
    scores = arr([[[0.5, 0.4, 0.7]]])
    y = kernel("NonMaxSuppression", 11)(_BOXES, scores, np.array([3]), arr([0.5]), arr([0.5]))
    np.testing.assert_array_equal(y, np.array([[0, 0, 2], [0, 0, 0]], dtype=np.int64))


def test_nms_selects_nothing_without_a_limit() -> None:
    y = kernel("NonMaxSuppression", 10)(_BOXES, arr([[[0.5, 0.4, 0.7]]]))
    assert y.shape == (0, 3) and y.dtype == np.int64


def test_nms_breaks_score_ties_by_index_and_never_suppresses_boxes_without_area() -> None:
    boxes = arr([[[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 1, 1], [0, 0, 1, 1]]])  # two flat, two identical squares
    scores = arr([[[0.9, 0.9, 0.8, 0.8]]])
    y = kernel("NonMaxSuppression", 11)(boxes, scores, np.array([10]), arr([0.5]))
    np.testing.assert_array_equal(y, np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2]], dtype=np.int64))


def test_nms_refuses_a_threshold_outside_0_1() -> None:
    with pytest.raises(ValueError, match="iou_threshold"):
        kernel("NonMaxSuppression", 11)(_BOXES, arr([[[0.5, 0.4, 0.7]]]), np.array([3]), arr([1.5]))


# --------------------------------------------------------------------------------------- GridSample

_LINE = arr([[[0, 10, 20, 30]]])  # N=1, C=1, one spatial axis of 4


def test_grid_sample_mode_names_and_ranks_by_version() -> None:
    grid = arr([[[[0.0, 0.0]]]])
    image = arr([[[[1, 2], [3, 4]]]])
    np.testing.assert_array_equal(kernel("GridSample", 16)(image, grid, mode="bilinear"), arr([[[[2.5]]]]))
    np.testing.assert_array_equal(kernel("GridSample", 20)(image, grid, mode="linear"), arr([[[[2.5]]]]))
    with pytest.raises(ValueError, match="mode"):
        kernel("GridSample", 16)(image, grid, mode="linear")
    with pytest.raises(ValueError, match="mode"):
        kernel("GridSample", 22)(image, grid, mode="bilinear")
    with pytest.raises(ValueError, match="4-D"):
        kernel("GridSample", 16)(_LINE, arr([[[0.0]]]))


def test_grid_sample_one_spatial_axis() -> None:
    grid = arr([[[-1.0], [1.0]]])
    gs = kernel("GridSample", 20)
    np.testing.assert_array_equal(gs(_LINE, grid, align_corners=1), arr([[[0, 30]]]))
    # without align_corners -1 and 1 are the outer edges: pixels -0.5 and 3.5, half of each sample missing
    np.testing.assert_array_equal(gs(_LINE, grid, align_corners=0), arr([[[0, 15]]]))


def test_grid_sample_nearest_rounds_half_to_even() -> None:
    # pixels ((g + 1) * 4 - 1) / 2 = 0.5 and 1.5 -> 0 and 2
    y = kernel("GridSample", 20)(_LINE, arr([[[-0.5], [0.0]]]), mode="nearest")
    np.testing.assert_array_equal(y, arr([[[0, 20]]]))


def test_grid_sample_reflection_mirrors_at_the_outer_edges() -> None:
    # g = -1.375 -> pixel -1.25, mirrored at -0.5 -> 0.25 -> 2.5
    y = kernel("GridSample", 20)(_LINE, arr([[[-1.375]]]), padding_mode="reflection")
    np.testing.assert_allclose(y, arr([[[2.5]]]), rtol=1e-6)


def test_grid_sample_cubic_border_clamps_each_sample() -> None:
    # pixel -0.5: taps -2, -1, 0, 1 read 0, 0, 0, 10 with weights k(1.5), k(0.5), k(0.5), k(1.5);
    # k(1.5) = -0.75 * 0.125, so the value is 10 * -0.09375
    y = kernel("GridSample", 20)(_LINE, arr([[[-1.0]]]), mode="cubic", padding_mode="border")
    np.testing.assert_allclose(y, arr([[[-0.9375]]]), rtol=1e-6)


def test_grid_sample_integer_input_is_truncated_and_strings_only_nearest() -> None:
    x = np.array([[[0, 10]]], dtype=np.int32)
    # align_corners=1: pixel (g + 1) / 2 = 0.25 -> 2.5 -> 2
    y = kernel("GridSample", 20)(x, arr([[[-0.5]]]), align_corners=1)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, np.array([[[2]]], dtype=np.int32))
    s = np.array([[["a", "b"]]])
    np.testing.assert_array_equal(
        kernel("GridSample", 20)(s, arr([[[1.0], [5.0]]]), mode="nearest", align_corners=1), np.array([[["b", ""]]])
    )
    with pytest.raises(ValueError, match="not defined"):
        kernel("GridSample", 20)(s, arr([[[1.0]]]))


# --------------------------------------------------------------------------------------- AffineGrid


def test_affine_grid_axes_of_length_one_sit_at_0() -> None:
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], dtype=np.float64)
    for align in (0, 1):
        y = kernel("AffineGrid", 20)(theta, np.array([1, 1, 1, 3]), align_corners=align)
        assert y.dtype == np.float64 and y.shape == (1, 1, 3, 2)
        xs = [-1, 0, 1] if align else [-2 / 3, 0, 2 / 3]
        np.testing.assert_allclose(y[0, 0], np.array([[v, 0] for v in xs]), atol=1e-12)


def test_affine_grid_checks_theta_against_size() -> None:
    with pytest.raises(ValueError, match="N = 2"):
        kernel("AffineGrid", 20)(np.zeros((1, 2, 3), F32), np.array([2, 1, 2, 2]))
    with pytest.raises(ValueError, match="theta"):
        kernel("AffineGrid", 20)(np.zeros((1, 2, 3), F32), np.array([1, 1, 2, 2, 2]))


# --------------------------------------------------------------------------------------- DeformConv


def test_deform_conv_one_spatial_axis() -> None:
    x = arr([[[0, 1, 2, 3]]])
    w = np.ones((1, 1, 2), F32)
    offset = np.full((1, 2, 3), 0.5, F32)
    # taps at o + k + 0.5: (0.5, 1.5) -> 2, (1.5, 2.5) -> 4, (2.5, 3.5) -> 2.5 + 1.5 (half of 3.5 is outside)
    y = kernel("DeformConv", 19)(x, w, offset)
    np.testing.assert_allclose(y, arr([[[2, 4, 4]]]), rtol=1e-6)


def test_deform_conv_checks_offset_and_groups() -> None:
    x = np.zeros((1, 2, 3, 3), F32)
    w = np.ones((2, 1, 2, 2), F32)
    with pytest.raises(ValueError, match="offset has shape"):
        kernel("DeformConv", 22)(x, w, np.zeros((1, 4, 2, 2), F32), group=2)
    with pytest.raises(ValueError, match="group"):
        kernel("DeformConv", 22)(x, w, np.zeros((1, 8, 2, 2), F32), group=1)
    y = kernel("DeformConv", 22)(x + 1, w, np.zeros((1, 16, 2, 2), F32), group=2, offset_group=2)
    np.testing.assert_array_equal(y, np.full((1, 2, 2, 2), 4, F32))


# ------------------------------------------------------------------------------------------- Col2Im


def test_col2im_sums_overlapping_blocks() -> None:
    # image 1 x 3, blocks 1 x 2 at columns 0 and 1: pixel 1 receives one element of each block
    x = np.array([[[1, 2], [10, 20]]], dtype=np.int64)
    y = kernel("Col2Im", 18)(x, np.array([1, 3]), np.array([1, 2]))
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, np.array([[[[1, 12, 20]]]], dtype=np.int64))


def test_col2im_checks_the_block_count() -> None:
    with pytest.raises(ValueError, match="blocks"):
        kernel("Col2Im", 18)(np.zeros((1, 2, 3), F32), np.array([1, 3]), np.array([1, 2]))


# ------------------------------------------------------------------------------------ CenterCropPad


def test_center_crop_pad_pads_strings_with_empty_strings() -> None:
    x = np.array(["a", "b"])
    y = kernel("CenterCropPad", 18)(x, np.array([5], dtype=np.int32))
    np.testing.assert_array_equal(y, np.array(["", "a", "b", "", ""]))


def test_center_crop_pad_checks_shape_against_axes() -> None:
    with pytest.raises(ValueError, match="shape has 1 values for 2 axes"):
        kernel("CenterCropPad", 18)(np.zeros((2, 2), F32), np.array([1]))
    with pytest.raises(ValueError, match="out of range"):
        kernel("CenterCropPad", 18)(np.zeros((2, 2), F32), np.array([1]), axes=[2])


# ------------------------------------------------------------------ naive references (small shapes)


def _keys(d: float, a: float) -> float:
    t = abs(d)
    if t <= 1:
        return (a + 2) * t**3 - (a + 3) * t**2 + 1
    if t < 2:
        return a * t**3 - 5 * a * t**2 + 8 * a * t - 4 * a
    return 0.0


def _naive_resize(x: np.ndarray, out: tuple[int, ...], mode: str, a: float) -> np.ndarray:
    """half_pixel coordinates, scale out / in, edge elements repeated; one output element at a time."""
    y = np.zeros(out)
    for o in itertools.product(*(range(n) for n in out)):
        taps_per_axis = []
        for axis, (oi, n_in, n_out) in enumerate(zip(o, x.shape, out, strict=True)):
            c = (oi + 0.5) * n_in / n_out - 0.5
            base = math.floor(c)
            if mode == "linear":
                taps = [(base, 1 - (c - base)), (base + 1, c - base)]
            else:
                taps = [(base + k, _keys(base + k - c, a)) for k in range(-1, 3)]
            taps_per_axis.append([(min(max(i, 0), x.shape[axis] - 1), w) for i, w in taps])
        y[o] = sum(
            math.prod(w for _, w in combo) * float(x[tuple(i for i, _ in combo)])
            for combo in itertools.product(*taps_per_axis)
        )
    return y


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("seed", range(4))
def test_resize_matches_a_naive_reference(mode: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 5, size=3))
    out = tuple(int(v) for v in rng.integers(1, 7, size=3))
    x = rng.standard_normal(shape)
    y = kernel("Resize", 19)(x, None, None, np.array(out, dtype=np.int64), mode=mode, cubic_coeff_a=-0.5)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, _naive_resize(x, out, mode, -0.5), rtol=1e-12, atol=1e-12)


def _naive_grid_sample_linear(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """2-D, zeros padding, align_corners=0; one output element at a time."""
    n, c, h, w = x.shape
    y = np.zeros((n, c, *grid.shape[1:3]))
    for b, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        px = ((grid[b, i, j, 0] + 1) * w - 1) / 2
        py = ((grid[b, i, j, 1] + 1) * h - 1) / 2
        x0, y0 = math.floor(px), math.floor(py)
        for yy, xx in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
            if 0 <= yy < h and 0 <= xx < w:
                y[b, :, i, j] += (1 - abs(py - yy)) * (1 - abs(px - xx)) * x[b, :, yy, xx]
    return y


@pytest.mark.parametrize("seed", range(4))
def test_grid_sample_linear_matches_a_naive_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, int(rng.integers(1, 5)), int(rng.integers(1, 5))))
    grid = rng.uniform(-1.3, 1.3, size=(2, 3, 4, 2))
    y = kernel("GridSample", 22)(x, grid)
    np.testing.assert_allclose(y, _naive_grid_sample_linear(x, grid), rtol=1e-12, atol=1e-12)
