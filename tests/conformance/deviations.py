"""What sonnx knowingly does not reproduce of onnx's backend test suites, as data with reasons.

The tables are read by ``tests/conformance/test_backend_suite.py`` (onnx's
``BackendTest`` against :mod:`sonnx.execution.backend`) and rendered by the docs'
conformance page. Keys are case names without the device suffix (``test_abs``,
not ``test_abs_cpu``), across the node, simple, PyTorch and light suites.

``DEVIATIONS``: cases that fail, each a strict expected failure: a case that
starts passing fails the suite until its entry is removed.

``REFUSALS``: cases sonnx deliberately refuses to run: the case must fail with
a :class:`~sonnx.base.errors.SonnxError` whose message matches the pattern, so a
kernel that silently computed something instead would fail the suite.

``NO_NODE_CASES``: operators with a kernel that no backend node case uses in
its main graph, each with the reason and where else it is tested.

``LEFT_OUT``: operators of onnx's schema registry without a kernel, with why.
"""

from __future__ import annotations

_GLOBAL_DRAW = (
    "the expected values were drawn with NumPy's global generator (np.random.binomial, continuing the stream that "
    "drew the case's inputs); sonnx's documented generator (a fresh RandomState seeded by the seed attribute, 0 "
    "when absent) cannot reproduce a draw that depends on the state the input generation left behind"
)

_NEGATIVE_AXIS = (
    "the model applies {op}-{v} with axis -1; negative axes were given a meaning only in version 11 (counted from "
    "the back), so sonnx refuses them in earlier versions instead of guessing what the producer meant"
)

DEVIATIONS: dict[str, str] = {
    "test_loop16_seq_none": (
        "onnx's comparison (BackendTest.assert_similar_outputs) cannot compare a sequence that holds a 0-d tensor: "
        "it calls len() on the element and raises TypeError, for the reference evaluator too; sonnx's outputs "
        "equal the expected ones by the comparison of tests/common/backend_cases.py"
    ),
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

REFUSALS: dict[str, tuple[str, str]] = {
    "test_GLU": ("Split-2: negative axis -1", _NEGATIVE_AXIS.format(op="Split", v=2)),
    "test_log_softmax_lastdim": ("LogSoftmax-1: negative axis -1", _NEGATIVE_AXIS.format(op="LogSoftmax", v=1)),
}

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

LEFT_OUT: dict[str, str] = {
    "ai.onnx.preview.training::Gradient": (
        "Gradient asks for the derivatives of the graph's outputs with respect to some of its tensors: that is a "
        "transformation of the graph (automatic differentiation), not a function of the operation's inputs that a "
        "kernel can compute; onnx's two simple-suite cases of it (test_gradient_of_add, test_gradient_of_add_and_mul) "
        "are refused"
    ),
}
"""Operators of onnx's schema registry that have no kernel, each with the reason."""

REFUSALS.update(
    {
        "test_gradient_of_add": ("without a kernel: .*Gradient", LEFT_OUT["ai.onnx.preview.training::Gradient"]),
        "test_gradient_of_add_and_mul": (
            "without a kernel: .*Gradient",
            LEFT_OUT["ai.onnx.preview.training::Gradient"],
        ),
    }
)
