"""The neural-network operator kernels: convolution (plain and transposed), pooling (average, max, Lp, RoI,
unpooling), the normalisation layers and padding."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_average_pool",
    "op_batch_normalization",
    "op_conv",
    "op_conv_transpose",
    "op_global_average_pool",
    "op_global_lp_pool",
    "op_global_max_pool",
    "op_group_normalization",
    "op_instance_normalization",
    "op_layer_normalization",
    "op_lp_normalization",
    "op_lp_pool",
    "op_lrn",
    "op_max_pool",
    "op_max_roi_pool",
    "op_max_unpool",
    "op_mean_variance_normalization",
    "op_pad",
    "op_rms_normalization",
)

MODULES = operator_modules(__package__, NAMES)
