"""Kernels of the second neural-network batch: transposed and integer convolution, Lp pooling and
normalisation, unpooling, RoI pooling, the normalisation layers, and (de)quantization."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_conv_integer",
    "op_conv_transpose",
    "op_dequantize_linear",
    "op_dynamic_quantize_linear",
    "op_global_lp_pool",
    "op_group_normalization",
    "op_instance_normalization",
    "op_layer_normalization",
    "op_lp_normalization",
    "op_lp_pool",
    "op_mat_mul_integer",
    "op_max_roi_pool",
    "op_max_unpool",
    "op_mean_variance_normalization",
    "op_qlinear_conv",
    "op_qlinear_mat_mul",
    "op_quantize_linear",
    "op_rms_normalization",
)

MODULES = operator_modules(__package__, NAMES)
