"""The working group's tolerance policy for the cross-check (``--tolerance sonnx-wg``).

Spec section 6 of spec/operators.rst; source: the group's ``tests-part1.md``
(commit ``219a2a0``, "Pass/fail criteria"). The group sorts operators into
classes: mathematically exact (structural) operators are compared bit for
bit, general element-wise arithmetic within an absolute, a relative and an
ULP threshold, and numerically sensitive operators by properties. A
cross-check compares graph *outputs*, so each output takes the class of the
operations it depends on: the widest class among every operation on a path
from the graph inputs (or stored tensors) to it, since an error an operation
makes is carried unchanged through the structural operations after it.

Operators the group gives no figure for (convolutions, matrix products,
reductions, normalizations, softmax...) form the class ``other``: an output
that depends on one keeps sonnx's default tolerance for its dtype, and the
report says so. The softmax property check the group names is not applied by
the cross-check (:data:`NOT_APPLIED`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..model.graph import Model
from .tolerance import DEFAULT_TOLERANCES, EXACT, ResolvedTolerance

SOURCE = "tests-part1.md of onnx/working-groups, commit 219a2a0 (2026-05-19), section 'Pass/fail criteria'"

STRUCTURAL = frozenset({
    "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice", "Gather",
    "GatherElements", "GatherND", "Expand", "Tile", "Pad", "DepthToSpace", "SpaceToDepth", "Shape", "Size",
    "Constant", "ConstantOfShape", "Where", "Compress", "ScatterND", "ScatterElements", "MaxPool",
    "GlobalMaxPool", "ReduceMax", "ReduceMin", "Max", "Min", "Relu", "Neg", "Abs", "ArgMax", "ArgMin", "TopK",
    "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Not", "And", "Or", "Xor", "IsNaN", "IsInf",
    "NonZero",
})
"""Operators whose output elements are input elements (or stored constants) moved, selected or compared, or
sign changes of them: no arithmetic rounds, so every correct implementation gives the same values."""

ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Reciprocal", "Exp", "Log", "Sin", "Cos", "Tan", "Asin", "Acos",
    "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Tanh", "Sigmoid", "Erf", "Gelu", "Elu", "Selu", "Celu",
    "LeakyRelu", "PRelu", "ThresholdedRelu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish", "Clip",
    "Floor", "Ceil", "Round", "Sign", "Mod", "Cast", "CastLike", "QuantizeLinear", "DequantizeLinear", "Swish",
    "Shrink", "BitShift",
})
"""Operators that compute each output element from the elements at one position of their inputs."""

CLASSES = ("structural", "element-wise", "other")
"""The classes, from the strictest; an output takes the widest of the operations it depends on."""

WG_FIGURES: dict[str, ResolvedTolerance] = {
    "float32": ResolvedTolerance(atol=1e-6, rtol=1e-5, ulp=2, exact=False, all_of=("atol", "rtol", "ulp")),
    "float64": ResolvedTolerance(atol=1e-12, rtol=1e-12, ulp=0, exact=False, all_of=("atol", "rtol")),
    "float16": ResolvedTolerance(atol=0.0, rtol=0.0, ulp=4, exact=False, all_of=("ulp",)),
}
"""The group's element-wise figures per dtype; a criterion the group gives no figure for is not in ``all_of``."""

NOT_APPLIED = (
    "the softmax property (every slice sums to 1 within 1e-5, elements in [0, 1]) is not checked by the "
    "cross-check: Softmax outputs keep the tolerance of the class 'other'",
)
"""What the group's policy asks that the cross-check does not do (reported with every run under the policy)."""


@dataclass(frozen=True)
class OutputClass:
    """The class of one graph output and the first operation of that class it depends on."""

    name: str
    cls: str
    because: str
    """The operation (label) that put the output in its class; empty for a structural output."""


def op_class(domain: str, operator: str) -> int:
    """The index in :data:`CLASSES` of an operator (a graph-holding or non-default-domain one is ``other``)."""
    if domain not in ("", "ai.onnx"):
        return 2
    if operator in STRUCTURAL:
        return 0
    if operator in ELEMENTWISE:
        return 1
    return 2


def output_classes(model: Model) -> dict[str, OutputClass]:
    """The class of every output of the main graph (the operations it depends on, in the main graph)."""
    g = model.graph
    cls: dict[str, tuple[int, str]] = {}
    producer = {o: op for op in g.operations for o in op.output_mapping if o}
    out: dict[str, OutputClass] = {}
    for name in g.outputs:
        stack, seen = [name], set()
        best = (0, "")
        while stack:  # every operation the output depends on, captures of nested graphs included
            n = stack.pop()
            if n in seen or n in cls:
                if n in cls and cls[n][0] > best[0]:
                    best = cls[n]
                continue
            seen.add(n)
            op = producer.get(n)
            if op is None:
                continue
            c = 2 if op.subgraphs else op_class(op.domain, op.operator)
            if c > best[0]:
                best = (c, op.label)
            stack.extend(op.required_inputs)
        cls[name] = best
        out[name] = OutputClass(name, CLASSES[best[0]], best[1])
    return out


def resolve(c: OutputClass, dtype: np.dtype) -> ResolvedTolerance | None:
    """The tolerance of an output of class ``c`` and element type ``dtype``; None: sonnx's default applies."""
    label = f"sonnx-wg {c.cls}" + (f" ({c.because})" if c.because else "")
    if c.cls == "structural":
        return ResolvedTolerance(EXACT.atol, EXACT.rtol, EXACT.ulp, True, None, (), label)
    figures = WG_FIGURES.get(np.dtype(dtype).name) if c.cls == "element-wise" else None
    if figures is None:
        base = DEFAULT_TOLERANCES.get(np.dtype(dtype).name)
        if base is None:  # integers, booleans, strings: compared exactly by every policy
            return None
        why = "no figure from the group for this dtype" if c.cls == "element-wise" else "no figure from the group"
        return ResolvedTolerance(base.atol, base.rtol, base.ulp, False, None, (), f"{label}: {why}, sonnx default")
    return ResolvedTolerance(figures.atol, figures.rtol, figures.ulp, False, None, figures.all_of, label)


def resolved_for(classes: Mapping[str, OutputClass], name: str, value: object) -> ResolvedTolerance | None:
    """The tolerance of output ``name`` holding ``value`` under the policy (None: the default path applies)."""
    c = classes.get(name)
    if c is None or not isinstance(value, np.ndarray):
        return None
    return resolve(c, value.dtype)
