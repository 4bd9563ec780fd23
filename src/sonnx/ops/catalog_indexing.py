"""The gather, scatter, selection (TopK, Unique), Einsum, Det and loss kernels (one module per operator)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_det",
    "op_einsum",
    "op_gather_elements",
    "op_gather_nd",
    "op_negative_log_likelihood_loss",
    "op_scatter",
    "op_scatter_elements",
    "op_scatter_nd",
    "op_softmax_cross_entropy_loss",
    "op_tensor_scatter",
    "op_top_k",
    "op_unique",
)

MODULES = operator_modules(__package__, NAMES)
