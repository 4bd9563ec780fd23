"""STRICT-OPERATORS (strict profile): only operators of the allowed set are used.

Strict-profile restriction: a certifiable model keeps to a small, reviewed set
of operators, for which the operator-level specifications and checks exist.
The set is the one configured for the run (``CheckConfig.allowed_operators``)
or, when none is configured, :data:`SONNX_OPERATORS` below: the classic CNN
operators of the ONNC operator list (seed 002), plus the elementwise, shape,
reduction and control-flow operators commonly needed around them.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ..model.structure import first, op_ref, operations_of, operator_kinds, scopes
from ..verdict import Severity, Verdict, Witness
from .base import PROFILE_STRICT, CheckContext, Rule
from .determinism import normal_domain

ID = "STRICT-OPERATORS"
SEVERITY = Severity.ERROR

CNN_OPERATORS = (
    "Add", "AveragePool", "BatchNormalization", "Concat", "Conv", "Gemm", "GlobalAveragePool", "LRN",
    "MaxPool", "Mul", "Relu", "Reshape", "Softmax", "Sum", "Unsqueeze", "Transpose",
)  # fmt: skip
OTHER_OPERATORS = (
    "Dropout", "Flatten", "Constant", "ConstantOfShape", "Identity", "Shape", "Pad", "Sub", "Div", "MatMul",
    "Sigmoid", "Tanh", "Clip", "LeakyRelu", "Exp", "Log", "Sqrt", "Pow", "Abs", "Neg", "Max", "Min", "Where",
    "Less", "Greater", "Equal", "Cast", "Gather", "Slice", "Split", "Squeeze", "ReduceMean", "ReduceSum",
    "ReduceMax", "ArgMax", "If", "Loop", "Scan",
)  # fmt: skip
SONNX_OPERATORS = frozenset(("", op) for op in CNN_OPERATORS + OTHER_OPERATORS)
"""The built-in operator set of the strict profile, as (domain, operator) pairs (all of the default domain)."""


def check(ctx: CheckContext) -> Verdict:
    configured = ctx.config.allowed_operators
    allowed = {(normal_domain(d), o) for d, o in (SONNX_OPERATORS if configured is None else configured)}
    found: List[Dict[str, Any]] = []
    names: set[str] = set()
    for sc in scopes(ctx):
        bad = {k for k in operator_kinds(ctx, sc.graph) if (normal_domain(k[0]), k[1]) not in allowed}
        if bad:
            names.update(f"{normal_domain(d) or 'ai.onnx'}::{o}" for d, o in bad)
            ops = sc.graph.operations
            found.extend(op_ref(sc.path, j, ops[j]) for j in operations_of(sc.graph, bad))
    if not found:
        return Verdict.proved(ID, SEVERITY)
    listed = sorted(names)
    source = "the configured set" if configured is not None else "the built-in SONNX set"
    return Verdict.violated(
        ID,
        Witness(
            f"{len(found)} operation(s) use operators outside {source}: {', '.join(listed[:10])}",
            {"count": len(found), "operators": listed, "operations": first(found)},
        ),
        SEVERITY,
    )


RULE = Rule(
    id=ID,
    title="Allowed operators only",
    statement=(
        "Every operation of the model, nested graphs included, applies an operator of the allowed set: the "
        "configured one, or by default the built-in SONNX operator list (default domain only)."
    ),
    severity=SEVERITY,
    profile=PROFILE_STRICT,
    check=check,
    rationale=(
        "Only operators with a reviewed specification can be verified at operator level. Witness: the "
        "operators outside the set and the operations that use them."
    ),
)
