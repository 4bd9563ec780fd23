"""Element-wise kernels: trigonometric and rounding functions, logic and bitwise operators, activations.

LogSoftmax and Hardmax (normalisations along an axis, versioned like Softmax) are here too.
"""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_acos",
    "op_acosh",
    "op_and",
    "op_asin",
    "op_asinh",
    "op_atan",
    "op_atanh",
    "op_bit_shift",
    "op_bitwise_and",
    "op_bitwise_not",
    "op_bitwise_or",
    "op_bitwise_xor",
    "op_ceil",
    "op_celu",
    "op_cos",
    "op_cosh",
    "op_elu",
    "op_erf",
    "op_floor",
    "op_gelu",
    "op_greater_or_equal",
    "op_hard_sigmoid",
    "op_hard_swish",
    "op_hardmax",
    "op_is_inf",
    "op_is_nan",
    "op_less_or_equal",
    "op_log_softmax",
    "op_mean",
    "op_mish",
    "op_mod",
    "op_not",
    "op_or",
    "op_prelu",
    "op_reciprocal",
    "op_round",
    "op_selu",
    "op_shrink",
    "op_sign",
    "op_sin",
    "op_sinh",
    "op_softplus",
    "op_softsign",
    "op_swish",
    "op_tan",
    "op_thresholded_relu",
    "op_xor",
)

MODULES = operator_modules(__package__, NAMES)
