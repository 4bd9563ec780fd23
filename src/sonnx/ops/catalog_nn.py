"""The neural-network operator kernels (convolution, pooling, normalisation, padding)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_average_pool",
    "op_batch_normalization",
    "op_conv",
    "op_global_average_pool",
    "op_global_max_pool",
    "op_lrn",
    "op_max_pool",
    "op_pad",
)

MODULES = operator_modules(__package__, NAMES)
