"""Which operators are deterministic: the table behind rule GRAPH-R2, kept as data.

SONNX restriction R2 (informal specification V2, final restriction list): a
graph shall only contain deterministic operators, i.e. operators whose outputs
are a function of their inputs and attributes.

How the table is read, for an operation of domain ``d`` and operator ``o``:

* ``d`` must be one of :data:`KNOWN_DOMAINS` (``ai.onnx`` is the default
  domain); for any other domain sonnx does not know what the operator does, so
  its determinism is unknown;
* the operator must exist in the ONNX operator schemas at the model's opset
  version for ``d``; otherwise its determinism is unknown;
* the entry of :data:`TABLE` covering (``d``, ``o``, schema since-version)
  decides: ``ALWAYS`` nondeterministic, ``NEVER`` deterministic (a reviewed
  case), or a named condition on the operation that the rule evaluates;
* an operator without an entry is deterministic: every other operator of the
  known domains was reviewed against its ONNX definition, which gives its
  outputs as a function of its inputs and attributes. Where that definition
  leaves something open, the decision and its reason are data too: a
  condition in :data:`TABLE` when the open point can make the outputs vary
  (duplicate indices of a scatter without reduction, a zero divisor of Mod,
  ...), or an entry of :data:`REVIEWED` when it cannot (an error instead of a
  value, a fixed tie rule, an accumulation order that each implementation
  fixes).

The control-flow operators (``If``, ``Loop``, ``Scan``, ``SequenceMap``) are
deterministic as operators: their bodies are graphs of the model and R2 checks
every operation in them.

ONNX's own ``OpSchema.node_determinism`` flag is *not* used to decide; the
test-suite compares it with this table and
:data:`~sonnx.rules.determinism_review.ONNX_FLAG_DIFFERENCES`
lists, with a reason, every operator on which the two disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from onnx import TensorProto

KNOWN_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview.training")
"""Domains whose operators sonnx knows (the ONNX operator sets it ships the schemas of)."""

NUMERIC_KINDS = "iubf"
"""NumPy kinds of a constant whose elements a value condition can compare with 0; any other (strings, complex
numbers) leaves the condition undecided, in both engines."""
INDEX_KINDS = "iu"
"""NumPy kinds of a constant that can be read as scatter indices (floats and booleans are not truncated)."""
ALWAYS = "always"
NEVER = "never"
IS_TEST_UNSET = "is_test absent or 0"
TRAINING_MODE_NOT_FALSE = "training_mode input given and not provably false"
TOPK_UNSORTED = "sorted attribute is 0"

DUPLICATE_INDICES = "reduction none and two indices may address one element"
ZERO_DIVISOR = "the divisor may hold a zero"
SEQUENCE_LENS_GIVEN = "the sequence_lens input is given"
UNREPRESENTABLE_CAST = (
    "the input may hold a value the target type cannot represent: a floating-point value outside an integer "
    "target's range (NaN and infinities included), a string to an integer target, a negative value to FLOAT8E8M0"
)

REPEATED_AXES_ATTRIBUTE = "the axes attribute names one axis twice"
REPEATED_AXES_INPUT = "the axes input may name one axis twice"
LOCALE_DEPENDENT = "the operation changes case, or compares stopwords without regard to case"
NAN_QUANTIZED = "the output type is an integer type and x / y_scale may be NaN"

CONDITIONS = (
    IS_TEST_UNSET,
    TRAINING_MODE_NOT_FALSE,
    TOPK_UNSORTED,
    DUPLICATE_INDICES,
    ZERO_DIVISOR,
    SEQUENCE_LENS_GIVEN,
    UNREPRESENTABLE_CAST,
    REPEATED_AXES_ATTRIBUTE,
    REPEATED_AXES_INPUT,
    LOCALE_DEPENDENT,
    NAN_QUANTIZED,
)
"""Conditions under which an operation of a conditional entry is nondeterministic."""


class Entry(NamedTuple):
    """One table row: which schema versions of an operator it covers, and when they are nondeterministic."""

    domain: str
    operator: str
    first: int
    """First schema since-version covered."""
    last: int | None
    """Last schema since-version covered; None for every later one."""
    condition: str
    """``ALWAYS``, ``NEVER`` or one of :data:`CONDITIONS`."""
    reason: str
    quotes: tuple[str, ...] = ()
    """Passages of the operator text (lower case, blanks collapsed) whose open point this entry decides: every
    passage of the covered versions that leaves a result open ("undefined", "unspecified", ...) must be quoted
    by some entry, and every quote must occur in that text."""


INTEGER_RANGES: Mapping[int, tuple[int, int]] = {
    TensorProto.UINT8: (0, 2**8 - 1),
    TensorProto.INT8: (-(2**7), 2**7 - 1),
    TensorProto.UINT16: (0, 2**16 - 1),
    TensorProto.INT16: (-(2**15), 2**15 - 1),
    TensorProto.UINT32: (0, 2**32 - 1),
    TensorProto.INT32: (-(2**31), 2**31 - 1),
    TensorProto.UINT64: (0, 2**64 - 1),
    TensorProto.INT64: (-(2**63), 2**63 - 1),
    TensorProto.UINT4: (0, 15),
    TensorProto.INT4: (-8, 7),
    TensorProto.UINT2: (0, 3),
    TensorProto.INT2: (-2, 1),
}
"""The integer ("fixed point") element types and the values each can hold, the targets for which Cast's text
leaves the conversion of a floating-point value out of range undefined."""
EXACT_SOURCES = frozenset(INTEGER_RANGES) | {TensorProto.BOOL}
"""Element types whose conversion to any integer type the text defines for every value (an integer out of range
keeps its low bits, a boolean gives 0 or 1)."""

_RANDOM = (
    "draws pseudo-random values; ONNX specifies no generator, so not even the seed attribute makes the "
    "values reproducible from one runtime to another"
)

_DUPLICATES = (
    "with reduction none (the only behaviour before version 16) ONNX leaves the result unspecified when two "
    "indices address the same element; constant indices are checked for repeats, indices computed at run time "
    "cannot be"
)

_UNREPRESENTABLE = (
    "the text leaves a conversion undefined where the target type cannot hold the value: a floating-point value "
    "out of an integer type's range, NaN or an infinity (x86 and ARM give different integers), a string to an "
    "integer type (\"2.718\" is undefined), and from version 24 a negative value or -0 to FLOAT8E8M0; a constant "
    "input is checked element by element, an input computed at run time only by its declared element type "
    "(integers and booleans convert to integers by defined rules)"
)
_REPEATED = (
    "the text leaves the result undefined when an axis is repeated (a negative axis counts from the back of the "
    "data's declared rank); constant axes are checked, axes computed at run time cannot be"
)
_REPEATED_QUOTE = ("behavior is undefined if an axis is repeated.",)
_CAST_QUOTES = (
    "fixed point: undefined if oor",
    'such as "2.718", to int is an undefined behavior',
    "casting negative values to float8e8m0 gives undefined behavior",
    "| -0 | unspecified | unspecified |",
    "| x < 0 | unspecified | unspecified |",
)

_GENERATORS = ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli")
"""The operators that draw random values, nondeterministic in every version."""

TABLE: tuple[Entry, ...] = (
    *(
        Entry("", o, 1, None, ALWAYS, _RANDOM, ("this operator is non-deterministic",) if o == "Bernoulli" else ())
        for o in _GENERATORS
    ),
    Entry(
        "",
        "Dropout",
        1,
        6,
        IS_TEST_UNSET,
        "versions 1 and 6 drop random elements unless the is_test attribute is set to a non-zero value",
    ),
    Entry(
        "",
        "Dropout",
        7,
        11,
        ALWAYS,
        "versions 7 and 10 carry no mode in the model: the runtime decides whether the operation runs in "
        "training mode, where it drops random elements",
    ),
    Entry(
        "",
        "Dropout",
        12,
        None,
        TRAINING_MODE_NOT_FALSE,
        "from version 12 the optional third input training_mode selects random dropping; the operation is "
        "deterministic only when that input is omitted or provably false (an initializer that is not a graph "
        "input, or a Constant, holding false)",
    ),
    Entry(
        "",
        "TopK",
        11,
        None,
        TOPK_UNSORTED,
        "with sorted = 0 the order of the returned values and indices is left to the implementation",
        ("if \"sorted\" is 0, order of returned 'values' and 'indices' are undefined",),
    ),
    Entry("", "ScatterND", 11, None, DUPLICATE_INDICES, _DUPLICATES),
    Entry("", "ScatterElements", 11, None, DUPLICATE_INDICES, _DUPLICATES),
    Entry("", "Scatter", 9, None, DUPLICATE_INDICES, _DUPLICATES),
    Entry(
        "",
        "Mod",
        10,
        None,
        ZERO_DIVISOR,
        "the operator text makes the result of a zero divisor platform dependent; the operation is "
        "deterministic only when its divisor is a constant without zeros",
        ("in case of dividend being zero, the results will be platform dependent",),
    ),
    Entry(
        "",
        "Scan",
        8,
        8,
        SEQUENCE_LENS_GIVEN,
        "Scan-8 leaves the scan outputs past each batch entry's sequence length undefined, so they are "
        "deterministic only without the sequence_lens input",
        ("the remaining values have an undefined value",),
    ),
    Entry("", "Slice", 1, 9, REPEATED_AXES_ATTRIBUTE, f"{_REPEATED} (said from version 13, true of every one)"),
    Entry("", "Slice", 10, None, REPEATED_AXES_INPUT, _REPEATED, _REPEATED_QUOTE),
    Entry("", "Pad", 18, None, REPEATED_AXES_INPUT, _REPEATED, _REPEATED_QUOTE),
    Entry("", "Resize", 18, None, REPEATED_AXES_ATTRIBUTE, _REPEATED, _REPEATED_QUOTE),
    Entry("", "CenterCropPad", 18, None, REPEATED_AXES_ATTRIBUTE, _REPEATED, _REPEATED_QUOTE),
    Entry(
        "",
        "StringNormalizer",
        10,
        None,
        LOCALE_DEPENDENT,
        "the locale that decides upper and lower case is left to the environment (a default of en_US 'or platform "
        "specific equivalent'); the outputs then depend on the platform for the strings given at run time, so "
        "such an operation is unknown; without a case change and with case-sensitive stopwords (or none) the "
        "locale is not used",
        ("environment dependent string that denotes the locale",),
    ),
    Entry(
        "",
        "QuantizeLinear",
        10,
        None,
        NAN_QUANTIZED,
        "the text saturates values out of the output type's range but gives no integer for NaN (x86 and ARM "
        "differ); a constant input holding NaN decides it, a zero or infinite input with a zero or infinite scale "
        "may give 0/0 or inf/inf, and an input computed at run time may hold NaN",
    ),
    Entry(
        "",
        "DynamicQuantizeLinear",
        11,
        None,
        NAN_QUANTIZED,
        "as QuantizeLinear, with the scale computed from the input: a NaN or an infinity in it, or zeros only (a "
        "scale of 0), give NaN quotients; a constant input is checked, an input computed at run time cannot be",
    ),
    Entry("", "Cast", 1, None, UNREPRESENTABLE_CAST, _UNREPRESENTABLE, _CAST_QUOTES),
    Entry("", "CastLike", 15, None, UNREPRESENTABLE_CAST, _UNREPRESENTABLE),
)

REVIEWED: tuple[Entry, ...] = (
    Entry(
        "",
        "TopK",
        1,
        None,
        NEVER,
        "equal values are ordered by their index along the axis, as the operator text requires: ties are no "
        "source of variation",
    ),
    Entry(
        "",
        "OptionalGetElement",
        15,
        None,
        NEVER,
        "the text leaves only the result of an empty optional undefined, and that case is an error, not a value",
        ("the behavior is undefined in this case",),
    ),
    Entry(
        "",
        "ReduceMean",
        1,
        None,
        NEVER,
        "a mean over an empty set is left undefined; it needs a zero-sized reduced axis, a shape outside the "
        "operator's domain (reading A8 of the spec), not run-to-run variation",
        ("reduction over an empty set of values yields undefined",),
    ),
    Entry(
        "",
        "ReduceLogSum",
        1,
        None,
        NEVER,
        "over an empty set the result is minus infinity where the type has it, else undefined: a zero-sized "
        "reduced axis is outside the operator's domain (reading A8 of the spec)",
        ("yields minus infinity (if supported by the datatype) or undefined otherwise",),
    ),
    Entry(
        "",
        "ReduceLogSumExp",
        1,
        None,
        NEVER,
        "as ReduceLogSum: an empty reduced axis is outside the operator's domain (reading A8 of the spec)",
        ("yields minus infinity (if supported by the datatype) or undefined otherwise",),
    ),
    Entry(
        "",
        "Cast",
        1,
        None,
        NEVER,
        "a string that is not a numeric literal has no defined conversion; such an input is outside the "
        "operator's domain (reading A8 of the spec); the values a target type cannot represent (out of an integer "
        "type's range, strings to integers, negative values to FLOAT8E8M0) are the condition above",
        ('converting non-numerical-literal string such as "hello world!" is an undefined behavior',),
    ),
    Entry(
        "",
        "MatMul",
        1,
        None,
        NEVER,
        "the order in which sums are accumulated (MatMul, Gemm, Conv, the reductions...) is fixed by each "
        "implementation, so one implementation gives the same outputs on the same inputs; differences between "
        "implementations are rounding, which the cross-checks measure (reading A9 of the spec)",
    ),
)
"""Operators whose ONNX text leaves something open that cannot make their outputs vary, with why.

Rendered in the spec next to :data:`TABLE`; no rule reads it."""

def entry_for(domain: str, operator: str, since: int) -> Entry | None:
    """The table entry covering schema version ``since`` of (``domain``, ``operator``), if any."""
    for e in TABLE:
        if e.domain == domain and e.operator == operator and e.first <= since and (e.last is None or since <= e.last):
            return e
    return None


def schema_class(domain: str, operator: str, since: int) -> str:
    """How the table classifies one schema version: deterministic, nondeterministic, conditional or unknown."""
    if domain not in KNOWN_DOMAINS:
        return "unknown"
    e = entry_for(domain, operator, since)
    if e is None or e.condition == NEVER:
        return "deterministic"
    return "nondeterministic" if e.condition == ALWAYS else "conditional"
