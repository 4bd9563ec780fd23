"""Kernels of the second neural-network batch: transposed and integer convolution, Lp pooling and
normalisation, unpooling, RoI pooling, the normalisation layers, and (de)quantization."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_conv_integer",
    "op_conv_transpose",
    "op_dequantize_linear",
    "op_dynamic_quantize_linear",
    "op_mat_mul_integer",
    "op_qlinear_conv",
    "op_qlinear_mat_mul",
    "op_quantize_linear",
)

MODULES = operator_modules(__package__, NAMES)
