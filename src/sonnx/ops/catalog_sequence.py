"""Sequence, optional, random, string, image and training-optimizer kernels (one module per operator)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_adagrad",
    "op_adam",
    "op_bernoulli",
    "op_concat_from_sequence",
    "op_image_decoder",
    "op_momentum",
    "op_multinomial",
    "op_optional",
    "op_optional_get_element",
    "op_optional_has_element",
    "op_random_normal",
    "op_random_normal_like",
    "op_random_uniform",
    "op_random_uniform_like",
    "op_regex_full_match",
    "op_sequence_at",
    "op_sequence_construct",
    "op_sequence_empty",
    "op_sequence_erase",
    "op_sequence_insert",
    "op_sequence_length",
    "op_sequence_map",
    "op_split_to_sequence",
    "op_string_concat",
    "op_string_normalizer",
    "op_string_split",
    "op_tf_idf_vectorizer",
)

MODULES = operator_modules(__package__, NAMES)
