"""The sequence-model kernels: recurrent networks, attention, spectral transforms and their windows."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_gru",
    "op_lstm",
    "op_rnn",
)

MODULES = operator_modules(__package__, NAMES)
