"""The image and geometry kernels (resampling, region pooling, box suppression, sampling grids, folding)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_affine_grid",
    "op_center_crop_pad",
    "op_col2im",
    "op_deform_conv",
    "op_grid_sample",
    "op_non_max_suppression",
    "op_resize",
    "op_roi_align",
    "op_upsample",
)

MODULES = operator_modules(__package__, NAMES)
