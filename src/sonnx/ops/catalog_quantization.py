"""The quantized-arithmetic kernels: integer convolution and matrix product, their QLinear forms, and the
conversions between real and quantized values (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_conv_integer",
    "op_dequantize_linear",
    "op_dynamic_quantize_linear",
    "op_mat_mul_integer",
    "op_qlinear_conv",
    "op_qlinear_mat_mul",
    "op_quantize_linear",
)

MODULES = operator_modules(__package__, NAMES)
