"""The values each attribute may take, by operator version: the hand-written table behind GRAPH-ATTRIBUTES.

onnx's schemas give an attribute's name, type, whether it is required and
its default in machine-readable form; the set of values it may take is only
in the prose of the operator text. This module writes that set down as data,
one :class:`Domain` per (domain, operator, range of since-versions,
attribute), each with the sentence of the operator text it rests on, in
sonnx's words. The test-suite scans every schema version sonnx knows and
fails when a ``STRING`` attribute, or an integer attribute naming axes, has
neither an entry here nor an entry of kind :data:`FREE` saying why any value
is defined, so the table cannot fall behind onnx unseen (spec, rule
GRAPH-ATTRIBUTES).

Kinds of entry (``values`` is read according to ``kind``):

* :data:`ONE_OF`: the value (each element of a list) is one of ``values``,
  compared exactly (case included);
* :data:`AT_LEAST`: each integer is at least ``values[0]``;
* :data:`AXIS`: each integer is an axis of a tensor whose rank the check must
  establish; ``values[0]`` is an :class:`Axis` saying whose rank and which range;
* :data:`PERMUTATION`: the list is a permutation of ``0 .. r-1`` for the rank
  ``r`` of input 0;
* :data:`ELEMENT_TYPE`: the integer is a ``TensorProto`` data type that the
  schema's type constraint ``values[0]`` allows (for ``STRING`` values, that
  type's enum name, as Cast-1 spells it);
* :data:`MATCHES`: the string matches the regular expression ``values[0]``;
* :data:`FREE`: every value of the schema's type is defined (the reason is the source);
* :data:`UNCHECKED`: the defined set is stated but sonnx cannot decide it; a given value leaves the check open.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

ONE_OF = "one of"
AT_LEAST = "at least"
AXIS = "axis"
PERMUTATION = "permutation"
ELEMENT_TYPE = "element type"
MATCHES = "matches"
FREE = "free"
UNCHECKED = "unchecked"


class Axis(NamedTuple):
    """Which axes an axis attribute may name: ``[-R, R - 1 + end]`` (or ``[0, ...]``) with ``R = r + extra``.

    ``r`` is the rank of input ``input`` (-1: a rank sonnx never establishes,
    such as a sequence's elements; -2: Scan's scan inputs, one per element);
    ``extra`` is added to it, or the string ``count`` adds the number of axes
    listed (Unsqueeze, whose axes name the output's dimensions). A negative
    value ``v`` (where allowed) names axis ``v + R``, and the axis named must
    lie in ``[0, R - 1 + end]`` and not be one of ``excluded``; ``also`` lists
    values defined besides.
    """

    input: int
    negative: bool
    end: int = 0
    extra: int | str = 0
    also: tuple[int, ...] = ()
    excluded: tuple[int, ...] = ()
    distinct: bool = False
    """The text forbids naming one axis twice (a negative and a non-negative value may name the same axis)."""
    same_rank: int | None = None
    """An input the operator text requires to have the same rank: its rank stands in when input ``input``'s is
    not established (an operation whose inputs differ in rank is undefined whatever its axis)."""


class Domain(NamedTuple):
    """One table row: the defined values of one attribute over a range of schema since-versions."""

    domain: str
    operator: str
    first: int
    last: int | None
    attribute: str
    kind: str
    values: tuple[Any, ...]
    source: str


def _rows(
    operators: Iterable[str], first: int, last: int | None, attribute: str, kind: str, values: tuple[Any, ...],
    source: str, domain: str = "",
) -> tuple[Domain, ...]:
    return tuple(Domain(domain, o, first, last, attribute, kind, values, source) for o in operators)


AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
_WINDOWED = ("AveragePool", "Conv", "ConvInteger", "ConvTranspose", "LpPool", "MaxPool", "QLinearConv")
_REDUCE = (
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
    "ReduceProd", "ReduceSum", "ReduceSumSquare",
)
_ACTIVATIONS = (
    "Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu",
    "Softsign", "Softplus",
)
_POST = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
_LEGACY_BROADCAST = ("Add", "And", "Div", "Equal", "Greater", "Less", "Mul", "Or", "Pow", "Sub", "Xor")
_ML = "ai.onnx.ml"
_IN_RANGE = "accepted range [-r, r-1] with r the rank of the input"
_NO_NEGATIVE = "the text of this version gives no meaning to a negative axis"
_FLAG = "a flag: 0 or 1"
_LABELS = "labels, vocabularies or map keys chosen by the model's author: any string is defined"

STRINGS: tuple[Domain, ...] = (
    *_rows(_WINDOWED, 1, None, "auto_pad", ONE_OF, AUTO_PAD,
           "auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID"),
    Domain("", "BitShift", 11, None, "direction", ONE_OF, ("RIGHT", "LEFT"), "direction is RIGHT or LEFT"),
    Domain("", "Cast", 1, 5, "to", ELEMENT_TYPE, ("T2",), "to names a type of the TensorProto DataType enum"),
    *_rows(("Cast", "CastLike"), 24, None, "round_mode", ONE_OF, ("up", "down", "nearest"),
           "rounding to float8e8m0 is up, down or nearest"),
    Domain("", "CausalConvWithState", 27, None, "activation", ONE_OF, ("silu", "swish", "none"),
           "the fused activation is silu, swish or none"),
    *_rows(("Constant",), 12, None, "value_string", FREE, (), "the value of a string constant: any string"),
    *_rows(("Constant",), 12, None, "value_strings", FREE, (), "the values of a string constant: any strings"),
    *_rows(("DepthToSpace", "SpaceToDepth"), 1, None, "mode", ONE_OF, ("DCR", "CRD"), "mode is DCR or CRD"),
    Domain("", "Einsum", 12, None, "equation", MATCHES,
           (r"^\s*(?:[A-Za-z]|\.\.\.)*\s*(?:,\s*(?:[A-Za-z]|\.\.\.)*\s*)*(?:->\s*(?:[A-Za-z]|\.\.\.)*\s*)?$",),
           "the equation is comma-separated terms of letters (one ellipsis at most), optionally -> and an output"),
    *_rows(("GRU", "LSTM", "RNN"), 1, None, "activations", ONE_OF, _ACTIVATIONS,
           "each activation is one of the functions the operator text lists"),
    *_rows(("GRU", "LSTM", "RNN"), 1, None, "direction", ONE_OF, ("forward", "reverse", "bidirectional"),
           "direction is forward, reverse or bidirectional"),
    Domain("", "Gelu", 20, None, "approximate", ONE_OF, ("none", "tanh"), "approximate is none or tanh"),
    Domain("", "GridSample", 16, 19, "mode", ONE_OF, ("bilinear", "nearest", "bicubic"),
           "mode is bilinear, nearest or bicubic"),
    Domain("", "GridSample", 20, None, "mode", ONE_OF, ("linear", "nearest", "cubic"),
           "mode is linear, nearest or cubic"),
    Domain("", "GridSample", 16, None, "padding_mode", ONE_OF, ("zeros", "border", "reflection"),
           "padding_mode is zeros, border or reflection"),
    Domain("", "ImageDecoder", 20, None, "pixel_format", ONE_OF, ("RGB", "BGR", "Grayscale"),
           "pixel_format is RGB, BGR or Grayscale"),
    Domain("", "LinearAttention", 27, None, "update_rule", ONE_OF, ("linear", "gated", "delta", "gated_delta"),
           "update_rule is linear, gated, delta or gated_delta"),
    *_rows(("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"), 12, None, "reduction", ONE_OF,
           ("none", "sum", "mean"), "reduction is none, sum or mean"),
    Domain("", "Pad", 1, 18, "mode", ONE_OF, ("constant", "reflect", "edge"), "mode is constant, reflect or edge"),
    Domain("", "Pad", 19, None, "mode", ONE_OF, ("constant", "reflect", "edge", "wrap"),
           "mode is constant, reflect, edge or wrap"),
    Domain("", "RegexFullMatch", 20, None, "pattern", UNCHECKED, (), "the pattern must be valid RE2 syntax"),
    Domain("", "Resize", 10, 10, "mode", ONE_OF, ("nearest", "linear"), "mode is nearest or linear"),
    Domain("", "Resize", 11, None, "mode", ONE_OF, ("nearest", "linear", "cubic"), "mode is nearest, linear or cubic"),
    Domain("", "Resize", 11, 12, "coordinate_transformation_mode", ONE_OF,
           ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
            "tf_crop_and_resize"), "the coordinate transformations this version's text defines"),
    Domain("", "Resize", 13, 18, "coordinate_transformation_mode", ONE_OF,
           ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"),
           "the coordinate transformations this version's text defines (tf_half_pixel_for_nn is gone)"),
    Domain("", "Resize", 19, None, "coordinate_transformation_mode", ONE_OF,
           ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
            "tf_crop_and_resize"), "the coordinate transformations this version's text defines"),
    Domain("", "Resize", 11, None, "nearest_mode", ONE_OF, ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"),
           "nearest_mode is round_prefer_floor, round_prefer_ceil, floor or ceil"),
    Domain("", "Resize", 18, None, "keep_aspect_ratio_policy", ONE_OF, ("stretch", "not_larger", "not_smaller"),
           "keep_aspect_ratio_policy is stretch, not_larger or not_smaller"),
    Domain("", "RoiAlign", 10, None, "mode", ONE_OF, ("avg", "max"), "mode is avg or max"),
    Domain("", "RoiAlign", 16, None, "coordinate_transformation_mode", ONE_OF, ("half_pixel", "output_half_pixel"),
           "coordinate_transformation_mode is half_pixel or output_half_pixel"),
    Domain("", "ScatterElements", 16, 17, "reduction", ONE_OF, ("none", "add", "mul"), "reduction is none, add or mul"),
    Domain("", "ScatterND", 16, 17, "reduction", ONE_OF, ("none", "add", "mul"), "reduction is none, add or mul"),
    *_rows(("ScatterElements", "ScatterND"), 18, None, "reduction", ONE_OF, ("none", "add", "mul", "max", "min"),
           "reduction is none, add, mul, max or min"),
    Domain("", "StringNormalizer", 10, None, "case_change_action", ONE_OF, ("LOWER", "UPPER", "NONE"),
           "case_change_action is LOWER, UPPER or NONE"),
    Domain("", "StringNormalizer", 10, None, "locale", UNCHECKED, (),
           "the locale's meaning is left to the environment and the implementation"),
    Domain("", "StringNormalizer", 10, None, "stopwords", FREE, (), "stop words: any strings"),
    Domain("", "StringSplit", 20, None, "delimiter", FREE, (), "the delimiter: any string (empty: whitespace)"),
    Domain("", "TensorScatter", 24, None, "mode", ONE_OF, ("linear", "circular"), "mode is linear or circular"),
    Domain("", "TfIdfVectorizer", 9, None, "mode", ONE_OF, ("TF", "IDF", "TFIDF"), "mode is TF, IDF or TFIDF"),
    Domain("", "TfIdfVectorizer", 9, None, "pool_strings", FREE, (), _LABELS),
    Domain("", "Upsample", 1, 6, "mode", ONE_OF, ("nearest", "bilinear"), "mode is nearest or bilinear"),
    Domain("", "Upsample", 7, None, "mode", ONE_OF, ("nearest", "linear"), "mode is nearest or linear"),
    Domain(_ML, "CastMap", 1, None, "cast_to", ONE_OF, ("TO_FLOAT", "TO_STRING", "TO_INT64"),
           "cast_to is TO_FLOAT, TO_STRING or TO_INT64"),
    Domain(_ML, "CastMap", 1, None, "map_form", ONE_OF, ("DENSE", "SPARSE"), "map_form is DENSE or SPARSE"),
    *_rows(("CategoryMapper", "OneHotEncoder"), 1, None, "cats_strings", FREE, (), _LABELS, _ML),
    *_rows(("CategoryMapper", "LabelEncoder"), 1, None, "default_string", FREE, (), _LABELS, _ML),
    Domain(_ML, "DictVectorizer", 1, None, "string_vocabulary", FREE, (), _LABELS),
    *(Domain(_ML, "LabelEncoder", 1, None, a, FREE, (), _LABELS) for a in ("classes_strings", "keys_strings",
                                                                           "values_strings")),
    *_rows(("LinearClassifier", "SVMClassifier", "TreeEnsembleClassifier", "ZipMap"), 1, None,
           "classlabels_strings", FREE, (), _LABELS, _ML),
    *_rows(("SVMClassifier", "SVMRegressor"), 1, None, "kernel_type", ONE_OF, ("LINEAR", "POLY", "RBF", "SIGMOID"),
           "kernel_type is LINEAR, POLY, RBF or SIGMOID", _ML),
    *_rows(("LinearClassifier", "LinearRegressor", "SVMClassifier", "SVMRegressor", "TreeEnsembleClassifier",
            "TreeEnsembleRegressor"), 1, None, "post_transform", ONE_OF, _POST,
           "post_transform is NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT", _ML),
    *_rows(("TreeEnsembleClassifier", "TreeEnsembleRegressor"), 1, None, "nodes_modes", ONE_OF,
           ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "LEAF"),
           "each node mode is one of the seven comparisons and LEAF", _ML),
    Domain(_ML, "TreeEnsembleRegressor", 1, None, "aggregate_function", ONE_OF, ("AVERAGE", "SUM", "MIN", "MAX"),
           "aggregate_function is AVERAGE, SUM, MIN or MAX"),
    Domain(_ML, "Normalizer", 1, None, "norm", ONE_OF, ("MAX", "L1", "L2"), "norm is MAX, L1 or L2"),
    Domain("ai.onnx.preview.training", "Momentum", 1, None, "mode", ONE_OF, ("standard", "nesterov"),
           "mode is standard or nesterov"),
    *(Domain("ai.onnx.preview.training", "Gradient", 1, None, a, FREE, (), "names of tensors of the graph")
      for a in ("xs", "y", "zs")),
)
"""Entries for the string attributes."""


def _axis(operators: Iterable[str], first: int, last: int | None, attribute: str, axis: Axis, source: str) -> tuple[
        Domain, ...]:
    return _rows(operators, first, last, attribute, AXIS, (axis,), source)


_SOFTMAX_LIKE = ("Softmax", "LogSoftmax", "Hardmax")
AXES: tuple[Domain, ...] = (
    *_rows(_LEGACY_BROADCAST, 1, 6, "axis", UNCHECKED, (),
           "the legacy broadcast axis of versions before 7: the text gives no range"),
    *_axis(("ArgMax", "ArgMin"), 1, 10, "axis", Axis(0, False), _NO_NEGATIVE),
    *_axis(("ArgMax", "ArgMin"), 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("CenterCropPad",), 18, None, "axes", Axis(0, True, distinct=True), _IN_RANGE + ", none repeated"),
    *_axis(("Compress",), 9, 10, "axis", Axis(0, False), _NO_NEGATIVE),
    *_axis(("Compress",), 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("Concat",), 1, 10, "axis", Axis(0, False), _NO_NEGATIVE),
    *_axis(("Concat",), 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("ConcatFromSequence",), 11, None, "axis", Axis(-1, True, 1, 1),
           "[-r, r-1], or [-r-1, r] with new_axis, r the rank of the sequence's tensors"),
    Domain("", "ConcatFromSequence", 11, None, "new_axis", ONE_OF, (0, 1), _FLAG),
    *_axis(("DFT",), 17, 19, "axis", Axis(0, True, -1), "accepted range [-r, -2] and [0, r-2]"),
    *_axis(("DequantizeLinear", "QuantizeLinear"), 10, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("Flatten",), 1, 10, "axis", Axis(0, False, 1), "the axis is in [0, r]"),
    *_axis(("Flatten",), 11, None, "axis", Axis(0, True, 1), "the axis is in [-r, r]"),
    *_axis(("Gather",), 1, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("GatherElements",), 11, None, "axis", Axis(0, True, same_rank=1), _IN_RANGE + "; indices of that rank"),
    *_axis(_SOFTMAX_LIKE, 1, 10, "axis", Axis(0, False), _NO_NEGATIVE),
    *_axis(_SOFTMAX_LIKE, 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("LayerNormalization", "RMSNormalization"), 17, None, "axis", Axis(0, True), "the axis is in [-r, r)"),
    *_axis(("LpNormalization",), 1, None, "axis", Axis(0, True), "the axis of the input; -1 is the last one"),
    *_axis(("MeanVarianceNormalization",), 9, None, "axes", Axis(0, False),
           "axes of the input to reduce over; the text gives no meaning to a negative axis"),
    *_axis(("OneHot",), 9, 10, "axis", Axis(0, False, 0, 1, (-1,)),
           "the new axis is in [0, r]; -1 means the innermost"),
    *_axis(("OneHot",), 11, None, "axis", Axis(0, True, 0, 1), "accepted range [-r-1, r] with r the rank of indices"),
    *_axis(_REDUCE, 1, 10, "axes", Axis(0, False), _NO_NEGATIVE),
    *_axis(_REDUCE, 11, None, "axes", Axis(0, True), _IN_RANGE),
    *_rows(_REDUCE, 13, None, "noop_with_empty_axes", ONE_OF, (0, 1), _FLAG),
    *_axis(("Resize",), 18, None, "axes", Axis(0, True, distinct=True), _IN_RANGE + ", none repeated"),
    Domain("", "ReverseSequence", 10, None, "batch_axis", ONE_OF, (0, 1), "batch_axis is 0 or 1"),
    Domain("", "ReverseSequence", 10, None, "time_axis", ONE_OF, (0, 1), "time_axis is 0 or 1"),
    Domain("", "Scan", 9, 10, "scan_input_axes", AXIS, (Axis(-2, False),), "the axis of each scan input"),
    Domain("", "Scan", 11, None, "scan_input_axes", AXIS, (Axis(-2, True),), _IN_RANGE + " scanned"),
    Domain("", "Scan", 9, None, "scan_output_axes", AXIS, (Axis(-1, True),),
           "the axis of each scan output, whose rank sonnx does not establish"),
    *_axis(("Scatter", "ScatterElements"), 9, None, "axis", Axis(0, True, same_rank=1),
           _IN_RANGE + "; indices of that rank"),
    *_axis(("Slice",), 1, 9, "axes", Axis(0, False), _NO_NEGATIVE),
    *_axis(("Split",), 1, 10, "axis", Axis(0, False), _NO_NEGATIVE),
    *_axis(("Split", "SplitToSequence"), 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("Squeeze",), 1, 10, "axes", Axis(0, False), "a list of non-negative axes of the input"),
    *_axis(("Squeeze",), 11, 12, "axes", Axis(0, True), _IN_RANGE),
    Domain("", "TensorScatter", 24, None, "axis", AXIS, (Axis(0, True, 0, 0, (), (0,)),),
           "an axis of past_cache other than 0 (the batch dimension)"),
    *_axis(("TopK",), 1, None, "axis", Axis(0, True), "the axis to sort on; the default -1 is the last one"),
    *_rows(("Transpose",), 1, None, "perm", PERMUTATION, (), "perm permutes the input's axes [0, r-1]"),
    *_axis(("Unique",), 11, None, "axis", Axis(0, True), _IN_RANGE),
    *_axis(("Unsqueeze",), 1, 10, "axes", Axis(0, False, 0, "count"), "non-negative axes of the output"),
    *_axis(("Unsqueeze",), 11, 12, "axes", Axis(0, True, 0, "count", distinct=True),
           "accepted range [-r, r-1], r the output's rank; no axis listed twice"),
)
"""Entries for the integer attributes that name axes."""

INTEGERS: tuple[Domain, ...] = (
    *_rows(("ArgMax", "ArgMin", *_REDUCE), 1, None, "keepdims", ONE_OF, (0, 1), _FLAG),
    Domain("", "SplitToSequence", 11, None, "keepdims", ONE_OF, (0, 1), _FLAG),
    *_rows(("ArgMax", "ArgMin"), 12, None, "select_last_index", ONE_OF, (0, 1), _FLAG),
    *_rows(("TopK",), 11, None, "largest", ONE_OF, (0, 1), _FLAG),
    *_rows(("TopK", "Unique"), 11, None, "sorted", ONE_OF, (0, 1), _FLAG),
    *_rows(("AveragePool", "LpPool", "MaxPool"), 10, None, "ceil_mode", ONE_OF, (0, 1), _FLAG),
    Domain("", "AveragePool", 7, None, "count_include_pad", ONE_OF, (0, 1), _FLAG),
    Domain("", "MaxPool", 8, None, "storage_order", ONE_OF, (0, 1), "storage_order is 0 (row major) or 1"),
    *_rows(("Gemm",), 1, None, "transA", ONE_OF, (0, 1), _FLAG),
    *_rows(("Gemm",), 1, None, "transB", ONE_OF, (0, 1), _FLAG),
    *_rows(("CumSum", "CumProd"), 11, None, "exclusive", ONE_OF, (0, 1), _FLAG),
    *_rows(("CumSum", "CumProd"), 11, None, "reverse", ONE_OF, (0, 1), _FLAG),
    Domain("", "Trilu", 14, None, "upper", ONE_OF, (0, 1), _FLAG),
    Domain("", "GRU", 1, None, "linear_before_reset", ONE_OF, (0, 1), _FLAG),
    Domain("", "LSTM", 1, None, "input_forget", ONE_OF, (0, 1), _FLAG),
    *_rows(("GRU", "LSTM", "RNN"), 14, None, "layout", ONE_OF, (0, 1), "layout is 0 or 1"),
    *_rows(("IsInf",), 10, None, "detect_negative", ONE_OF, (0, 1), _FLAG),
    *_rows(("IsInf",), 10, None, "detect_positive", ONE_OF, (0, 1), _FLAG),
    Domain("", "NonMaxSuppression", 10, None, "center_point_box", ONE_OF, (0, 1), "center_point_box is 0 or 1"),
    Domain("", "Resize", 11, None, "exclude_outside", ONE_OF, (0, 1), "exclude_outside is 0 (default) or 1"),
    Domain("", "Resize", 18, None, "antialias", ONE_OF, (0, 1), "antialias is set to 1 or not"),
    Domain("", "Reshape", 14, None, "allowzero", ONE_OF, (0, 1), "allowzero is 0 or 1"),
    Domain("", "Mod", 10, None, "fmod", ONE_OF, (0, 1), "fmod is 0 (integer mod) or 1 (fmod)"),
    *_rows(("AffineGrid", "GridSample"), 16, None, "align_corners", ONE_OF, (0, 1), _FLAG),
    *_rows(_WINDOWED, 1, None, "pads", AT_LEAST, (0,), "pads are non-negative"),
    *_rows(_WINDOWED, 1, None, "strides", AT_LEAST, (1,), "strides are positive"),
    *_rows(_WINDOWED, 1, None, "dilations", AT_LEAST, (1,), "dilations are positive"),
    *_rows(_WINDOWED, 1, None, "kernel_shape", AT_LEAST, (1,), "each kernel dimension is positive"),
    *_rows(("Conv", "ConvInteger", "ConvTranspose", "QLinearConv", "DeformConv"), 1, None, "group", AT_LEAST, (1,),
           "the number of groups is positive"),
    Domain("", "Cast", 6, None, "to", ELEMENT_TYPE, ("T2",), "to is a data type the output's constraint allows"),
    *_rows(("EyeLike", "Multinomial", "RandomNormalLike", "RandomUniformLike", "Bernoulli"), 1, None, "dtype",
           ELEMENT_TYPE, ("T2",), "dtype is a data type the output's constraint allows"),
    *_rows(("RandomNormal", "RandomUniform"), 1, None, "dtype", ELEMENT_TYPE, ("T",),
           "dtype is a data type the output's constraint allows"),
)
"""Other integer attributes with a stated set: flags, sizes that must be positive, data types."""

TABLE: tuple[Domain, ...] = STRINGS + AXES + INTEGERS
"""Every entry, looked up by :func:`domains_for`."""


def domains_for(domain: str, operator: str, since: int, attribute: str) -> list[Domain]:
    """The entries covering schema since-version ``since`` of (``domain``, ``operator``)'s ``attribute``."""
    return [
        d for d in _BY_KEY.get((domain, operator, attribute), ())
        if d.first <= since and (d.last is None or since <= d.last)
    ]


_BY_KEY: dict[tuple[str, str, str], list[Domain]] = {}
for _d in TABLE:
    _BY_KEY.setdefault((_d.domain, _d.operator, _d.attribute), []).append(_d)
