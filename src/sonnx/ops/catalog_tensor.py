"""The element-wise, reduction and tensor-layout kernels (one module per operator)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_abs",
    "op_add",
    "op_arg_max",
    "op_cast",
    "op_clip",
    "op_concat",
    "op_constant",
    "op_constant_of_shape",
    "op_div",
    "op_dropout",
    "op_equal",
    "op_exp",
    "op_flatten",
    "op_gather",
    "op_gemm",
    "op_greater",
    "op_identity",
    "op_leaky_relu",
    "op_less",
    "op_log",
    "op_mat_mul",
    "op_max",
    "op_min",
    "op_mul",
    "op_neg",
    "op_pow",
    "op_reduce_max",
    "op_reduce_mean",
    "op_reduce_sum",
    "op_relu",
    "op_reshape",
    "op_shape",
    "op_sigmoid",
    "op_slice",
    "op_softmax",
    "op_split",
    "op_sqrt",
    "op_squeeze",
    "op_sub",
    "op_sum",
    "op_tanh",
    "op_transpose",
    "op_unsqueeze",
    "op_where",
)

MODULES = operator_modules(__package__, NAMES)
