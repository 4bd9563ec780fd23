"""Backend node test cases sonnx knowingly does not reproduce, as data with reasons.

``DEVIATIONS``: expected failures, run as strict xfails (a case that starts
passing fails the suite until its entry is removed).

``REFUSALS``: cases whose operation sonnx deliberately refuses to execute (or
cannot yet: an operator without a kernel); the
test asserts that execution fails with a :class:`~sonnx.errors.SonnxError`
whose message matches the pattern, so a kernel that silently computed
something instead would fail. ``REFUSAL_RULES`` apply the same to every case
whose id matches a regular expression (each rule must match some case).

``NO_NODE_CASES``: operators with a kernel that no backend node case uses in
its main graph, each with the reason and where else it is tested.
"""

from __future__ import annotations

_GLOBAL_DRAW = (
    "the expected values were drawn with NumPy's global generator (np.random.binomial, continuing the stream that "
    "drew the case's inputs); sonnx's documented generator (a fresh RandomState seeded by the seed attribute, 0 "
    "when absent) cannot reproduce a draw that depends on the state the input generation left behind"
)

DEVIATIONS: dict[str, str] = {
    "test_maxunpool_export_with_output_shape": (
        "I holds flat indices into the output (as MaxPool's Indices into its input); the expected data places "
        "them in the 4x4 shape inferred from the attributes and copies that into the top-left of the 5x5 "
        "output_shape (index 5 at row 1, column 1 instead of row 1, column 0); onnx issue 2398, excluded "
        "by onnxruntime as invalid"
    ),
    "test_bernoulli": _GLOBAL_DRAW,
    "test_bernoulli_double": _GLOBAL_DRAW,
    "test_bernoulli_seed": _GLOBAL_DRAW + " (the case's seed attribute 0 was not used to draw them)",
    "test_bernoulli_expanded": _GLOBAL_DRAW,
    "test_bernoulli_double_expanded": _GLOBAL_DRAW,
    "test_bernoulli_seed_expanded": _GLOBAL_DRAW + " (the case's seed attribute 0 was not used to draw them)",
}

REFUSAL_RULES: tuple[tuple[str, str, str], ...] = ()

REFUSALS: dict[str, tuple[str, str]] = {}

_ML_NO_CASES = "onnx generates no backend node case for this ai.onnx.ml operator (unit tests in tests/ops)"

NO_NODE_CASES: dict[str, str] = {
    "GlobalLpPool": "onnx has no backend node case for GlobalLpPool; unit tests in tests/ops",
    "MaxRoiPool": "onnx has no backend node case for MaxRoiPool; unit tests (a naive reference) in tests/ops",
    "ConcatFromSequence": "no onnx node case; onnx's model cases test_sequence_model4/5 run in tests/ops",
    "Multinomial": "no onnx node case (random); unit tests in tests/ops",
    "Optional": "its node cases are inside If branches only (test_if_opt)",
    "RandomNormal": "no onnx node case (random); unit tests in tests/ops",
    "RandomNormalLike": "no onnx node case (random); unit tests in tests/ops",
    "RandomUniform": "no onnx node case (random); unit tests in tests/ops",
    "SequenceAt": "inside nested graphs only (SequenceMap expansions); onnx's model cases run in tests/ops",
    "SequenceConstruct": "inside If branches only (test_if_seq); onnx's model cases run in tests/ops",
    "SequenceErase": "no onnx node case; onnx's model cases test_sequence_model2/3 run in tests/ops",
    **{
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
    },
}
"""Operators with a kernel but no backend node case whose main graph uses them, each with the reason."""
