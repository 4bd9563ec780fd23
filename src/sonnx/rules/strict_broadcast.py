"""STRICT-BROADCAST (strict profile): no operation broadcasts a tensor implicitly.

Spec rule STRICT-BROADCAST (spec/graph.rst, section 4.1), from the working
group's need AI-008 (needs.md: "all operations done on the tensors must be
explicitly described in the model (e.g., no implicit type casting,
broadcasting, shape inference)") and its issue #1.5 on shape broadcasting.
A change of shape must be an operation of its own (``Expand``, ``Reshape``,
``Unsqueeze``), never a side effect of an arithmetic operator.

Which operators broadcast is read from their ONNX texts (:func:`broadcasting`,
checked against onnx's schema documentation by a test):

* multidirectional (NumPy-style) broadcasting between all inputs: the
  element-wise arithmetic, comparison, logical and bitwise operators, ``Where``,
  ``StringConcat``, and ``Max``, ``Min``, ``Mean``, ``Sum`` from version 8;
* unidirectional broadcasting of some inputs to a target: ``Gemm`` from
  version 7 (``C`` to the shape of ``Y``), ``PRelu`` from version 7 (``slope``
  to ``X``), ``LayerNormalization`` (``Scale`` and ``B`` to ``X``),
  ``RMSNormalization`` (``Scale`` to ``X``);
* the limited broadcasting of versions before 7 (``Add``-6, ``Gemm``-6...),
  only when their ``broadcast`` attribute is non-zero (second operand to the
  first, ``C`` to ``Y`` for ``Gemm``);
* the batch dimensions of ``MatMul``, ``MatMulInteger`` and ``QLinearMatMul``,
  which behave like ``numpy.matmul`` (all dimensions but the last two, which
  must be identical between the two operands unless both have rank 2 or less);
* ``Einsum`` broadcasts over an ellipsis; an equation with ``...`` is not
  analysed (UNKNOWN for that operation), one without broadcasts nothing.

An operation broadcasts when the operands concerned do not all have the very
same shape (multidirectional, batch dimensions), or a broadcast operand's
shape is not the very same as its target's (unidirectional): a different rank
counts, since aligning ranks is itself an implicit reshape. Shapes come from
onnx's shape inference (not strict, with data propagation), as the check gives
them (:func:`.derived.derived_model`: for a file, from the bytes the loader
read; for a model in memory, from its file when the file still holds it, else
from the bytes it is written as when the caller gives them), after the
declarations no runtime enforces are removed (:mod:`sonnx.loader.unenforced`):
the shapes rest on the main graph's inputs as onnxruntime enforces them,
initial values and constants, never on a ``value_info`` entry or a graph
output's declaration (spec, "What a PROVED rests on"); a model whose
structure changed after it was read is never judged on its file's shapes, nor,
when the caller gives its bytes, one whose stored values changed.

Deciding with partial shapes: two shapes are the same when they have the same
rank and at each dimension the same integer or the same symbolic name (a name
is then one input dimension carried by inference, since a name the main
graph's inputs share is split per place first: no runtime checks that two
places bearing one name have one size); they certainly differ
when their ranks differ or two integer dimensions differ. Anything else (a rank
unknown, an unknown dimension, two different names, a name against an integer)
leaves the operation undetermined. Verdicts: VIOLATED with each broadcasting
operation and the shapes of its operands (and target); otherwise UNKNOWN when
some operation is undetermined, with the tensors whose shapes are missing; never
PROVED then. A model that is neither its file's nor given as bytes, or one onnx cannot read, is UNKNOWN.

Operations are those the file writes (:func:`.graph_arity.written_scopes`):
inside a model-local function body onnx's inference adds no type, and the
function's own ``value_info`` is not enforced, so shapes there are not known. A node that calls a
model-local function is not an application of the standard operator (its
body's operations are checked instead); operators outside the default domain
are not broadcasting operators of ONNX and are not examined (STRICT-OPERATORS
governs them). This rule is not structural: it has no SMT encoding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders, op_ref
from ..model.graph import Dim, Operation
from .base import CheckContext, Listing, open_or_proved
from .derived import derived_model
from .graph_arity import Signatures, WrittenScope, written_scopes
from .schemas import normal_domain, opset_version, schema_at

ID = "STRICT-BROADCAST"
SEVERITY = Severity.ERROR
LISTING = Listing(
    "operation(s) broadcast implicitly", "operations", lambda f: f"{f['operation']} in {f['scope']} ({f['kind']})", 3
)
STRUCTURAL = False
"""A rule about shapes, not about the raw facts: it has no SMT encoding (spec, section 4; tools.traceability)."""

MULTI = "multidirectional"
UNI = "unidirectional"
LEGACY = "broadcast attribute"
BATCH = "matmul batch dimensions"
ELLIPSIS = "einsum ellipsis"

Shape = tuple[Dim, ...] | None
"""A tensor's shape as far as it is known; None when even the rank is not."""

_ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"})
"""Element-wise operators with limited broadcasting (a ``broadcast`` attribute) before version 7, NumPy-style after."""
_MULTI = frozenset(
    {"GreaterOrEqual", "LessOrEqual", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Where",
     "StringConcat"}
)
"""Operators with NumPy-style broadcasting in every version."""
_MULTI_FROM_8 = frozenset({"Max", "Min", "Mean", "Sum"})
"""Variadic operators whose inputs must have one shape before version 8 and broadcast from version 8."""
_MATMUL = {"MatMul": (0, 1), "MatMulInteger": (0, 1), "QLinearMatMul": (0, 3)}
"""Operators that multiply like ``numpy.matmul``, with the input positions of their two matrix operands."""


class Entry(NamedTuple):
    """How an operator version broadcasts."""

    kind: str
    operands: tuple[int, ...] = ()
    """The input positions that are broadcast (empty: every input, for multidirectional broadcasting)."""
    target: tuple[str, int] | None = None
    """For unidirectional broadcasting: ``("input", k)`` or ``("output", k)``, the shape broadcast to."""


def broadcasting(operator: str, since: int) -> Entry | None:
    """How version ``since`` of the default-domain ``operator`` broadcasts (None: it does not)."""
    if operator in _ELEMENTWISE and since < 7:
        return Entry(LEGACY, (1,), ("input", 0))
    if operator == "Gemm":
        return Entry(LEGACY if since < 7 else UNI, (2,), ("output", 0))
    if operator in _ELEMENTWISE or operator in _MULTI or (operator in _MULTI_FROM_8 and since >= 8):
        return Entry(MULTI)
    if operator == "PRelu" and since >= 7:
        return Entry(UNI, (1,), ("input", 0))
    if operator == "LayerNormalization":
        return Entry(UNI, (1, 2), ("input", 0))
    if operator == "RMSNormalization":
        return Entry(UNI, (1,), ("input", 0))
    if operator in _MATMUL:
        return Entry(BATCH, _MATMUL[operator])
    if operator == "Einsum":
        return Entry(ELLIPSIS)
    return None


def same(a: Shape, b: Shape) -> bool | None:
    """True when ``a`` and ``b`` are the same shape, False when they certainly differ, None when undetermined."""
    if a is None or b is None:
        return None
    if len(a) != len(b):
        return False
    open_ = False
    for x, y in zip(a, b, strict=True):
        if isinstance(x, int) and isinstance(y, int):
            if x != y:
                return False
        elif not (isinstance(x, str) and x == y):
            open_ = True
    return None if open_ else True


def show(shape: Shape) -> list[Any] | str:
    """A shape for a witness: its dimensions (``?`` for an unknown one), or ``unknown rank``."""
    return "unknown rank" if shape is None else ["?" if d is None else d for d in shape]


class Shapes:
    """The shape of a name seen from one written scope (lexical scoping through the enclosing scopes)."""

    def __init__(self, scopes: Sequence[WrittenScope]) -> None:
        self.scopes = scopes

    def of(self, s: int, name: str) -> Shape:
        while s >= 0:
            g = self.scopes[s].graph
            t = g.tensors.get(name)
            if t is not None and t.type is not None and t.type.kind == "tensor" and t.type.shape is not None:
                return t.type.shape
            if t is not None and t.initial_value is not None:
                return tuple(t.initial_value.dims)
            if t is not None or name in g.defined_names:
                return None
            s = self.scopes[s].parent
        return None


class Outcome(NamedTuple):
    broadcasts: bool
    open: list[str]
    """Why the operation is undetermined (empty when it is decided)."""
    details: dict[str, Any]


def _operands(op: Operation, positions: Sequence[int]) -> list[tuple[int, str]]:
    ins = op.input_mapping
    return [(k, ins[k]) for k in positions if k < len(ins) and ins[k]]


def _pairs(shapes: list[Shape]) -> bool | None:
    """Over every pair: False if some pair certainly differs, None if some is undetermined, else True."""
    verdicts = [same(a, b) for i, a in enumerate(shapes) for b in shapes[i + 1 :]]
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _unknown(names: Sequence[str], shapes: Sequence[Shape]) -> list[str]:
    """The names whose shape is not fully known (no rank, or an unknown dimension)."""
    return [n for n, s in zip(names, shapes, strict=True) if s is None or None in s]


def decide(entry: Entry, op: Operation, shape: Callable[[str], Shape]) -> Outcome:
    """Whether ``op`` broadcasts, from the shapes ``shape`` gives its tensors."""
    if entry.kind == ELLIPSIS:
        eq = op.attribute("equation")
        if eq is not None and "..." in str(eq.value):
            return Outcome(False, ["its equation has an ellipsis, whose broadcasting is not analysed"], {})
        return Outcome(False, [], {})
    if entry.kind == LEGACY:
        flag = op.attribute("broadcast")
        if flag is None or not flag.value:
            return Outcome(False, [], {})
    positions = entry.operands or tuple(range(len(op.input_mapping)))
    operands = _operands(op, positions)
    listed = [{"position": k, "tensor": n, "shape": show(shape(n))} for k, n in operands]
    details: dict[str, Any] = {"kind": entry.kind, "operands": listed}
    shapes = [shape(n) for _, n in operands]
    if entry.target is not None:
        side, k = entry.target
        mapping = op.input_mapping if side == "input" else op.output_mapping
        name = mapping[k] if k < len(mapping) else ""
        target = shape(name) if name else None
        details["target"] = {side: k, "tensor": name, "shape": show(target)}
        decided = [same(s, target) for s in shapes]
        result = False if False in decided else None if None in decided else True
        missing = _unknown([name, *(n for _, n in operands)], [target, *shapes])
    else:
        if entry.kind == BATCH:
            if all(s is not None and len(s) <= 2 for s in shapes):
                return Outcome(False, [], {})
            shapes = [None if s is None else s[:-2] for s in shapes]
        result = _pairs(shapes)
        missing = _unknown([n for _, n in operands], shapes)
    if result is False:
        return Outcome(True, [], details)
    if result is None:
        why = f"shapes of {', '.join(repr(n) for n in missing)} not known" if missing else "symbolic dimensions differ"
        return Outcome(False, [why], details)
    return Outcome(False, [], {})


def check(ctx: CheckContext) -> Verdict:
    inferred, why = derived_model(ctx)
    if inferred is None:
        return Verdict.unknown(ID, f"{why} (STRICT-BROADCAST reads the shapes onnx infers for it)", SEVERITY)
    scopes = written_scopes(inferred)
    sigs = Signatures(inferred)
    shapes = Shapes(scopes)
    found = Offenders()
    open_: list[str] = []
    for s, sc in enumerate(scopes):
        for j, op in enumerate(sc.graph.operations):
            domain = normal_domain(op.domain)
            if domain or (domain, op.operator) in sigs.functions:
                continue
            schema, _ = schema_at(domain, op.operator, opset_version(sc.imports, domain))
            entry = None if schema is None else broadcasting(op.operator, int(schema.since_version))
            if entry is None:
                continue
            out = decide(entry, op, partial(shapes.of, s))
            if out.broadcasts:
                found.add(1, [{**op_ref(sc.path, j, op), "operator": f"ai.onnx::{op.operator}-{schema.since_version}",
                               **out.details}])
            elif out.open:
                open_.append(f"{op.label} in {sc.path}: {out.open[0]}")
    if found.count:
        return LISTING.verdict(found, ID, SEVERITY, {"undetermined_count": len(open_)})
    return open_or_proved(ID, SEVERITY, f"whether {len(open_)} operation(s) broadcast is not established", open_)
