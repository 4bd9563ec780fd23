"""The review of GRAPH-R2's determinism table against onnx: its texts' wording, and its determinism flags.

:data:`WORDING`: passages of operator texts that use a word of open results
("undefined", "arbitrary"...) and leave nothing open. The test-suite scans
every operator text of the known domains for such words
(spec, GRAPH-R2 and reading A8); each passage it finds is quoted by an entry of
:data:`~sonnx.rules.determinism_table.TABLE` or
:data:`~sonnx.rules.determinism_table.REVIEWED`, or here, with the reason the
word decides no result. No rule reads this list; the spec renders it.

:data:`ONNX_FLAG_DIFFERENCES`: every operator on which the table and onnx's
own ``OpSchema.node_determinism`` flag disagree, with why (a test compares
them).
"""

from __future__ import annotations

from collections.abc import Mapping

from .determinism_table import NEVER, Entry

_COERCED = (
    "'arbitrary' says which input ranks are accepted: every rank is coerced to two dimensions, a defined "
    "reshaping"
)
_MISSING_TRACKS = (
    "'left undefined' means the attribute may be omitted, and the text gives its default (false for every node)"
)

WORDING: tuple[Entry, ...] = (
    *(
        Entry("", operator, 1, 12, NEVER, _COERCED, ("for an arbitrary n-dimensional tensor input",))
        for operator in ("Softmax", "LogSoftmax", "Hardmax")
    ),
    Entry(
        "",
        "CenterCropPad",
        18,
        None,
        NEVER,
        "'unspecified' means the dimensions that the axes attribute does not name; the text keeps them unchanged",
        ("unspecified dimensions will remain unchanged",),
    ),
    Entry(
        "",
        "StringSplit",
        20,
        None,
        NEVER,
        "'unspecified' means the delimiter attribute is omitted, and the text defines the splitting for that case",
        ("if the `delimiter` is unspecified", "where the `delimiter` is unspecified"),
    ),
    Entry(
        "ai.onnx.ml",
        "LinearRegressor",
        1,
        None,
        NEVER,
        "'not defined' means the targets attribute is omitted; the text gives its default, 1",
        ("1 if not defined",),
    ),
    *(
        Entry("ai.onnx.ml", operator, 1, None, NEVER, _MISSING_TRACKS, ("this attribute may be left undefined",))
        for operator in ("TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble")
    ),
)
"""Entries whose word names no open result, each with the passage it quotes and why."""

_BODY = "as for If: the body is a graph of the model and is checked operation by operation"
_PERMUTATION = (
    "onnx leaves the flag unknown on version 28; the operator is a fixed permutation of its input, as in every "
    "earlier version"
)

ONNX_FLAG_DIFFERENCES: Mapping[tuple[str, str], str] = {
    ("", "If"): "onnx flags control flow as nondeterministic because of the body; sonnx checks the branches "
    "as graphs of the model, so the operator itself is deterministic",
    ("", "Loop"): _BODY,
    ("", "Scan"): _BODY,
    ("", "SequenceMap"): f"{_BODY}; the order in which samples are processed does not change the outputs, which "
    "keep the input order",
    ("", "AffineGrid"): "onnx flags it nondeterministic, but its definition gives the grid as a closed-form "
    "function of theta, size and align_corners",
    ("", "Dropout"): "onnx flags every version nondeterministic; sonnx decides per operation for versions 1, 6 "
    "(is_test) and 12 on (training_mode), and flags versions 7 and 10, whose mode the runtime chooses",
    ("", "TopK"): "onnx flags it deterministic; with sorted = 0 (versions 11 and later) the order of the "
    "results is unspecified, so sonnx decides per operation",
    ("", "ScatterND"): "onnx flags it deterministic; with reduction none and repeated indices the result is "
    "unspecified, so sonnx decides per operation (constant indices are checked)",
    ("", "ScatterElements"): "as ScatterND: repeated indices without a reduction leave the result unspecified",
    ("", "Scatter"): "as ScatterND: repeated indices leave the result unspecified",
    ("", "Mod"): "onnx flags it deterministic; its text makes a zero divisor's result platform dependent, so "
    "sonnx decides per operation (a constant divisor is checked)",
    ("", "Cast"): "onnx flags it deterministic; its text leaves a floating-point value out of an integer type's "
    "range (and from version 24 a negative value cast to FLOAT8E8M0) undefined, so sonnx decides per operation",
    ("", "CastLike"): "as Cast: a value its target type cannot represent is undefined",
    ("", "Slice"): "onnx flags it deterministic; a repeated axis leaves the result undefined, so sonnx decides per "
    "operation (constant axes are checked)",
    ("", "Pad"): "as Slice: a repeated axis leaves the result undefined",
    ("", "Resize"): "as Slice: a repeated axis leaves the result undefined",
    ("", "CenterCropPad"): "as Slice: a repeated axis leaves the result undefined",
    ("", "QuantizeLinear"): "onnx flags it deterministic; its text places no NaN among the saturated integers, so "
    "sonnx decides per operation",
    ("", "DynamicQuantizeLinear"): "as QuantizeLinear: a NaN quotient has no integer in the text",
    ("", "StringNormalizer"): "onnx flags it deterministic; its case changes follow a locale the environment "
    "chooses, so sonnx decides per operation",
    ("", "LinearAttention"): "onnx leaves the flag unknown; the definition gives the outputs by a sequential "
    "recurrence over the inputs, a function of them",
    ("", "CausalConvWithState"): "onnx leaves the flag unknown; the definition is a causal depthwise "
    "convolution, a function of its inputs",
    ("", "DepthToSpace"): _PERMUTATION,
    ("", "SpaceToDepth"): _PERMUTATION,
    ("ai.onnx.preview", "FlexAttention"): "domain ai.onnx.preview is not one sonnx knows, so sonnx answers "
    "unknown where onnx says deterministic",
}
"""Every operator on which :func:`~sonnx.rules.determinism_table.schema_class` and onnx's ``node_determinism`` flag
disagree, with why."""
