"""The conversion, reduction, index and layout kernels of batch b (one module per operator).

Cast stays in :mod:`sonnx.ops.catalog_tensor`; its conversion rules, shared
with CastLike, are in :mod:`sonnx.ops._convert`.
"""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_arg_min",
    "op_bit_cast",
    "op_cast_like",
    "op_compress",
    "op_cum_prod",
    "op_cum_sum",
    "op_depth_to_space",
    "op_expand",
    "op_eye_like",
    "op_non_zero",
    "op_one_hot",
    "op_range",
    "op_reduce_l1",
    "op_reduce_l2",
    "op_reduce_log_sum",
    "op_reduce_log_sum_exp",
    "op_reduce_min",
    "op_reduce_prod",
    "op_reduce_sum_square",
    "op_reverse_sequence",
    "op_size",
    "op_space_to_depth",
    "op_tile",
    "op_trilu",
)

MODULES = operator_modules(__package__, NAMES)
