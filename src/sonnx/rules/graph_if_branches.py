"""GRAPH-IF-BRANCHES: the two branches of an ``If`` agree with each other and with the ``If``.

Seed statement (informal specification V2, "Control-flow operators"): the
then_branch and the else_branch must produce the same number and types of
outputs, and those are mapped to the outputs of the ``If`` node.

Checked for every ``If`` of the default domain, in every graph: both branch
attributes are present and hold a graph; both branches have as many outputs as
each other and as the ``If``'s output mapping; and at each position the two
branch outputs have the same kind (tensor, sequence...) and element type, at
every depth. sonnx reads the types the model declares; where a branch output's
kind or element type is not declared, the agreement cannot be established and
the verdict is UNKNOWN with the positions, never PROVED (unless some other
mismatch is certain: then VIOLATED). Shapes may differ (ONNX allows branches
of different shapes).
"""

from __future__ import annotations

from typing import Any

from ..model.graph import Graph, Operation, TensorType
from ..model.index import operations_of, operator_kinds
from ..model.structure import scopes
from ..verdict import Severity, Verdict
from ..witness import brief, op_ref
from .base import PROFILE_SONNX, CheckContext, Rule, offenders_verdict

ID = "GRAPH-IF-BRANCHES"
SEVERITY = Severity.ERROR
BRANCHES = ("then_branch", "else_branch")
IF_KINDS = frozenset({("", "If")})


def _show(t: TensorType) -> str:
    inner = f"<{_show(t.element)}>" if t.element is not None else ""
    return f"{t.kind}({t.elem_type}){inner}"


def type_conflict(a: TensorType | None, b: TensorType | None) -> bool:
    """True when both types are declared and differ in kind or in a known element type (at any depth)."""
    while a is not None and b is not None:
        if a.kind != b.kind or (a.elem_type and b.elem_type and a.elem_type != b.elem_type):
            return True
        a, b = a.element, b.element
    return False


def undeclared(t: TensorType | None) -> bool:
    """True when the type, or a type it holds, leaves the kind or the element type open."""
    if t is None:
        return True
    while t is not None:
        if t.kind in ("tensor", "sparse_tensor") and t.elem_type == 0:
            return True
        if t.kind in ("sequence", "optional") and t.element is None:
            return True
        if t.kind == "map" and (t.elem_type == 0 or t.element is None):
            return True
        t = t.element
    return False


def unknown_positions(op: Operation) -> list[dict[str, Any]]:
    """Branch output positions whose types cannot be compared because one side leaves them undeclared."""
    then, other = op.attribute("then_branch"), op.attribute("else_branch")
    if then is None or other is None or not isinstance(then.value, Graph) or not isinstance(other.value, Graph):
        return []
    out = []
    for k, (x, y) in enumerate(zip(then.value.outputs, other.value.outputs, strict=False)):
        tx, ty = then.value.tensor(x).type, other.value.tensor(y).type
        if not type_conflict(tx, ty) and (undeclared(tx) or undeclared(ty)):
            out.append({"position": k, "then_branch": x, "else_branch": y})
    return out


def problems(op: Operation) -> list[dict[str, Any]]:
    """What is wrong with one ``If`` operation (empty when nothing is)."""
    branches: dict[str, Graph] = {}
    found: list[dict[str, Any]] = []
    for name in BRANCHES:
        a = op.attribute(name)
        if a is None or a.type != "GRAPH" or not isinstance(a.value, Graph):
            found.append({"problem": f"attribute {name} is missing or is not a graph"})
        else:
            branches[name] = a.value
    if found:
        return found
    then, other = branches["then_branch"], branches["else_branch"]
    counts = {"then_branch": len(then.outputs), "else_branch": len(other.outputs), "if": len(op.output_mapping)}
    if len(set(counts.values())) > 1:
        found.append({"problem": "output counts differ", "counts": counts})
    for k, (x, y) in enumerate(zip(then.outputs, other.outputs, strict=False)):
        tx, ty = then.tensor(x).type, other.tensor(y).type
        if type_conflict(tx, ty):
            assert tx is not None and ty is not None
            found.append(
                {
                    "problem": "output types differ",
                    "position": k,
                    "then_branch": {"tensor": x, "type": _show(tx)},
                    "else_branch": {"tensor": y, "type": _show(ty)},
                }
            )
    return found


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    open_: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        ops = sc.graph.operations
        kinds = IF_KINDS & operator_kinds(ctx, sc.graph)
        if kinds:
            for j in operations_of(sc.graph, kinds):
                found.extend({**op_ref(sc.path, j, ops[j]), **p} for p in problems(ops[j]))
                open_.extend({**op_ref(sc.path, j, ops[j]), **p} for p in unknown_positions(ops[j]))
    if not found and open_:
        shown = [f"{f['operation']} in {f['scope']} output {f['position']}" for f in open_]
        return Verdict.unknown(
            ID,
            f"branch output types not declared, so their agreement is not established: {brief(shown, 3)}",
            SEVERITY,
        )
    return offenders_verdict(
        found, ID, SEVERITY, "If branch mismatch(es)", "mismatches",
        lambda f: f"{f['operation']} in {f['scope']}: {f['problem']}", keep=3,
    )


RULE = Rule(
    id=ID,
    title="If branches agree",
    statement=(
        "Every If operation has a then_branch and an else_branch graph with as many outputs as each other and "
        "as the If's output mapping, of the same kind and element type at each position (undeclared types: "
        "UNKNOWN)."
    ),
    severity=SEVERITY,
    profile=PROFILE_SONNX,
    check=check,
    rationale=(
        "The outputs of the If are those of whichever branch runs, so both branches must deliver the same "
        "number and types of values. Witness: each If with the mismatch (missing branch, counts, or the two "
        "disagreeing output types)."
    ),
)
