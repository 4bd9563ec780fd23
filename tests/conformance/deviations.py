"""Backend node test cases sonnx knowingly does not reproduce, as data with reasons.

``DEVIATIONS``: expected failures, run as strict xfails (a case that starts
passing fails the suite until its entry is removed).

``REFUSALS``: cases whose operation sonnx deliberately refuses to execute; the
test asserts that execution fails with a :class:`~sonnx.errors.SonnxError`
whose message matches the pattern, so a kernel that silently computed
something instead would fail. ``REFUSAL_RULES`` apply the same to every case
whose id matches a regular expression (each rule must match some case).
"""

from __future__ import annotations

DEVIATIONS: dict[str, str] = {}

# Element types NumPy has no type for: sonnx's Cast refuses them instead of emulating them.
_UNSUPPORTED_TYPES = "|".join(
    (
        "BFLOAT16",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E4M3FN",
        "FLOAT8E5M2FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E8M0",
        "FLOAT4E2M1",
        "UINT4",
        "INT4",
        "UINT2",
        "INT2",
    )
)

REFUSAL_RULES: tuple[tuple[str, str, str], ...] = (
    (
        rf"^test_cast(like)?_.*(?<![A-Z0-9])({_UNSUPPORTED_TYPES})(_|$)",
        "not supported|no NumPy",
        "element type without a NumPy counterpart (bfloat16, float8, float4, 2/4-bit integers)",
    ),
)

_TRAINING = "Dropout in training mode draws a random mask; sonnx executes inference only"

_SEQUENCES = (
    "the nested graphs use sequence or optional operators (SequenceConstruct, SequenceInsert, "
    "OptionalHasElement), which are outside the SONNX operator set and have no sonnx kernel"
)

REFUSALS: dict[str, tuple[str, str]] = {
    "test_if_opt": ("without a kernel: .*SequenceConstruct", _SEQUENCES),
    "test_if_seq": ("without a kernel: .*SequenceConstruct", _SEQUENCES),
    "test_loop13_seq": ("without a kernel: .*SequenceInsert", _SEQUENCES),
    "test_loop16_seq_none": ("without a kernel: .*OptionalHasElement", _SEQUENCES),
    "test_training_dropout_default": ("inference only", _TRAINING),
    "test_training_dropout_default_mask": ("inference only", _TRAINING),
    "test_training_dropout": ("inference only", _TRAINING),
    "test_training_dropout_mask": ("inference only", _TRAINING),
    # ratio 0 makes training deterministic, but the graph still asks for training mode
    "test_training_dropout_zero_ratio": ("inference only", _TRAINING),
    "test_training_dropout_zero_ratio_mask": ("inference only", _TRAINING),
}

_ML_NO_CASES = "onnx generates no backend node case for this ai.onnx.ml operator (see tests/ops/test_ml_kernels.py)"

# Operators with a kernel but no backend node case of their own (qualified as the harness names them).
NO_CASES: dict[str, str] = {
    f"ai.onnx.ml::{op}": _ML_NO_CASES
    for op in (
        "CastMap",
        "CategoryMapper",
        "DictVectorizer",
        "FeatureVectorizer",
        "Imputer",
        "LinearClassifier",
        "LinearRegressor",
        "Normalizer",
        "OneHotEncoder",
        "SVMClassifier",
        "SVMRegressor",
        "Scaler",
        "TreeEnsembleClassifier",
        "TreeEnsembleRegressor",
        "ZipMap",
    )
}
