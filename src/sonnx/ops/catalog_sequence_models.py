"""The sequence-model kernels: recurrent networks, attention, spectral transforms and their windows."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_attention",
    "op_blackman_window",
    "op_causal_conv_with_state",
    "op_dft",
    "op_flex_attention",
    "op_gru",
    "op_hamming_window",
    "op_hann_window",
    "op_linear_attention",
    "op_lstm",
    "op_mel_weight_matrix",
    "op_rnn",
    "op_rotary_embedding",
    "op_stft",
    "op_swi_glu",
)

MODULES = operator_modules(__package__, NAMES)
