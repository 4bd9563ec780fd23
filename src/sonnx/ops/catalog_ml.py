"""The ``ai.onnx.ml`` kernels: classical machine-learning operators (one module per operator)."""

from __future__ import annotations

from .base import operator_modules

NAMES = (
    "op_array_feature_extractor",
    "op_binarizer",
    "op_cast_map",
    "op_category_mapper",
    "op_dict_vectorizer",
    "op_feature_vectorizer",
    "op_imputer",
    "op_label_encoder",
    "op_linear_classifier",
    "op_linear_regressor",
    "op_normalizer",
    "op_one_hot_encoder",
    "op_scaler",
    "op_svm_classifier",
    "op_svm_regressor",
    "op_tree_ensemble",
    "op_tree_ensemble_classifier",
    "op_tree_ensemble_regressor",
    "op_zip_map",
)

MODULES = operator_modules(__package__, NAMES)
