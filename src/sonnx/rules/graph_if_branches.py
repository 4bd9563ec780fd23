"""GRAPH-IF-BRANCHES: the two branches of an ``If`` agree with each other and with the ``If``.

Seed statement (informal specification V2, "Control-flow operators"): the
then_branch and the else_branch must produce the same number and types of
outputs, and those are mapped to the outputs of the ``If`` node. The working
group's graph.md version 23 adds ("The if operator") that the branches' output
shapes may differ but the shape of each ``If`` output must be compatible with
both of them.

Checked for every ``If`` of the default domain, in every graph: both branch
attributes are present and hold a graph; both branches have as many outputs as
each other and as the ``If``'s output mapping; and at each position the two
branch outputs have the same kind (tensor, sequence...) and element type, at
every depth. sonnx compares the types the model declares (a contradiction
between them is a violation; where a branch output's kind or element type is
not declared, the agreement cannot be established and the verdict is UNKNOWN
with the positions, never PROVED unless some other mismatch is certain: then
VIOLATED), and then the types the branches produce, which a declaration does
not fix (no runtime holds a computed value to it, spec 9.4): those onnx's
inference derives from the model file without its unenforced declarations
(:mod:`.derived`). A certain difference there is a violation; a model not read
from a file, or a position whose type is not derived, is UNKNOWN.

Shapes (graph.md v23): the two branches may give shapes that differ, but the
shape declared for each ``If`` output must be *compatible* with the shape of
the output of each branch at its position (:func:`shape_conflict`): the two
shapes can be made equal by giving sizes to their open dimensions, where one
symbolic name stands for one size within the pair and each unknown dimension
for a size of its own. So the ranks are equal, two integer dimensions at one
position are equal, and a name is never required to be two different sizes.
Where either shape is not declared (no rank), nothing is claimed and nothing
contradicts; that is not an open point of the rule. Sequences and optionals are
compared level by level, down to their element tensors. This part is not
structural: it has no SMT encoding (neither has the rest of this rule).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ..base.verdict import Severity, Verdict
from ..base.witness import brief, op_ref
from ..model.graph import Dim, Graph, Operation, TensorType
from ..model.index import operations_of, operator_kinds
from ..model.structure import scopes, walk_scopes
from .base import CheckContext, Listing
from .derived import derived_model

ID = "GRAPH-IF-BRANCHES"
SEVERITY = Severity.ERROR
LISTING = Listing(
    "If branch mismatch(es)", "mismatches", lambda f: f"{f['operation']} in {f['scope']}: {f['problem']}", 3
)
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


class _Sizes:
    """Union-find over the dimensions of two shapes: a class is one size, bound to at most one integer."""

    def __init__(self) -> None:
        self.parent: dict[Hashable, Hashable] = {}
        self.size: dict[Hashable, int] = {}

    def find(self, x: Hashable) -> Hashable:
        root = x
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while x != root:
            x, self.parent[x] = self.parent[x], root
        return root

    def class_of(self, d: Dim, fresh: Hashable) -> Hashable:
        """The class of dimension ``d``: its integer, its name, or ``fresh`` for an unknown dimension."""
        if isinstance(d, int):
            root = self.find(("size", d))
            self.size.setdefault(root, d)
            return root
        return self.find(("name", d) if isinstance(d, str) else fresh)

    def join(self, a: Hashable, b: Hashable) -> str:
        """Make classes ``a`` and ``b`` one size; why they cannot be ("" when they can)."""
        if a == b:
            return ""
        sa, sb = self.size.get(a), self.size.get(b)
        if sa is not None and sb is not None:
            return f"{sa} against {sb}"
        self.parent[a] = b
        if sa is not None:
            self.size[b] = sa
        return ""


def shape_conflict(a: TensorType | None, b: TensorType | None) -> str:
    """Why the declared shapes of ``a`` and ``b`` are not compatible ("" when they are; see the module text)."""
    sizes = _Sizes()
    level = 0
    while a is not None and b is not None:
        if a.shape is not None and b.shape is not None:
            where = f" (element level {level})" if level else ""
            if len(a.shape) != len(b.shape):
                return f"rank {len(a.shape)} against {len(b.shape)}{where}"
            for k, (x, y) in enumerate(zip(a.shape, b.shape, strict=True)):
                why = sizes.join(sizes.class_of(x, ("open", level, k, 0)), sizes.class_of(y, ("open", level, k, 1)))
                if why:
                    return f"dimension {k}: {why}{where}"
        a, b, level = a.element, b.element, level + 1
    return ""


def _shape(t: TensorType | None) -> list[Any] | None:
    return None if t is None or t.shape is None else ["?" if d is None else d for d in t.shape]


def shape_problems(op: Operation, outer: Graph, branches: dict[str, Graph]) -> list[dict[str, Any]]:
    """Each If output whose declared shape is not compatible with a branch's output at its position."""
    found: list[dict[str, Any]] = []
    for k, y in enumerate(op.output_mapping):
        ty = outer.tensor(y).type if y else None
        if ty is None:
            continue
        for name in BRANCHES:
            g = branches[name]
            if k >= len(g.outputs):
                continue
            x = g.outputs[k]
            tx = g.tensor(x).type
            why = shape_conflict(ty, tx)
            if why:
                found.append(
                    {
                        "problem": "output shapes incompatible",
                        "position": k,
                        "if": {"tensor": y, "shape": _shape(ty)},
                        name: {"tensor": x, "shape": _shape(tx)},
                        "why": why,
                    }
                )
    return found


def unknown_positions(op: Operation) -> list[dict[str, Any]]:
    """Branch output positions whose types cannot be compared because one side leaves them undeclared.

    Only the position is kept: the UNKNOWN verdict's reason names the If and the position (no witness).
    """
    then, other = op.attribute("then_branch"), op.attribute("else_branch")
    if then is None or other is None or not isinstance(then.value, Graph) or not isinstance(other.value, Graph):
        return []
    out = []
    for k, (x, y) in enumerate(zip(then.value.outputs, other.value.outputs, strict=False)):
        tx, ty = then.value.tensor(x).type, other.value.tensor(y).type
        if not type_conflict(tx, ty) and (undeclared(tx) or undeclared(ty)):
            out.append({"position": k})
    return out


def problems(op: Operation, outer: Graph) -> list[dict[str, Any]]:
    """What is wrong with one ``If`` operation of the graph ``outer`` (empty when nothing is)."""
    branches: dict[str, Graph] = {}
    found: list[dict[str, Any]] = []
    for name in BRANCHES:
        a = op.attribute(name)
        if a is None or a.type != "GRAPH":  # a GRAPH attribute holds a Graph (sonnx.model.graph.Attribute)
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
    found.extend(shape_problems(op, outer, branches))
    return found


def _branches(op: Operation) -> tuple[Graph, Graph] | None:
    then, other = op.attribute("then_branch"), op.attribute("else_branch")
    if then is None or other is None or not isinstance(then.value, Graph) or not isinstance(other.value, Graph):
        return None
    return then.value, other.value


def _has_outputs(op: Operation) -> bool:
    b = _branches(op)
    return b is not None and bool(b[0].outputs) and bool(b[1].outputs)


def produced_problems(ctx: CheckContext, ifs: list[tuple[int, int]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The element types the branches produce, as onnx's inference derives them from enforced facts (spec 9.4).

    ``ifs`` are the (scope, operation) of the ``If`` operations. Returns the
    certain mismatches (witness entries) and the reasons of the positions
    whose types are not derived.
    """
    model, why = derived_model(ctx)
    mine = scopes(ctx)
    if model is None:
        return [], [f"{why}, so the types the branches produce are not derived"]
    theirs = {s.path: s.graph for s in walk_scopes(model.graph)}
    found: list[dict[str, Any]] = []
    open_: list[str] = []
    for i, j in ifs:
        sc = mine[i]
        op = sc.graph.operations[j]
        g = theirs.get(sc.path)
        other = g.operations[j] if g is not None and j < len(g.operations) else None
        if other is None or other[:5] != op[:5]:
            open_.append(f"{op.label} in {sc.path}: the file read again does not hold this operation")
            continue
        branches = _branches(other)
        if branches is None:
            open_.append(f"{op.label} in {sc.path}: the file read again does not hold this operation")
            continue
        t_then, t_else = branches
        for k, (x, y) in enumerate(zip(t_then.outputs, t_else.outputs, strict=False)):
            tx, ty = t_then.tensor(x).type, t_else.tensor(y).type
            if type_conflict(tx, ty):
                assert tx is not None and ty is not None
                found.append({**op_ref(sc.path, j, op), "problem": "produced output types differ", "position": k,
                              "then_branch": {"tensor": x, "type": _show(tx)},
                              "else_branch": {"tensor": y, "type": _show(ty)}})
            elif undeclared(tx) or undeclared(ty):
                open_.append(f"{op.label} in {sc.path} output {k}: onnx's inference derives no element type")
    return found, open_


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    open_: list[dict[str, Any]] = []
    ifs: list[tuple[int, int]] = []
    for i, sc in enumerate(scopes(ctx)):
        ops = sc.graph.operations
        kinds = IF_KINDS & operator_kinds(ctx, sc.graph)
        if kinds:
            for j in operations_of(sc.graph, kinds):
                found.extend({**op_ref(sc.path, j, ops[j]), **p} for p in problems(ops[j], sc.graph))
                open_.extend({**op_ref(sc.path, j, ops[j]), **p} for p in unknown_positions(ops[j]))
                ifs.append((i, j))
    if not found and open_:
        shown = [f"{f['operation']} in {f['scope']} output {f['position']}" for f in open_]
        return Verdict.unknown(
            ID,
            f"branch output types not declared, so their agreement is not established: {brief(shown, 3)}",
            SEVERITY,
        )
    if not found and any(_has_outputs(scopes(ctx)[i].graph.operations[j]) for i, j in ifs):
        produced, undecided = produced_problems(ctx, ifs)
        found.extend(produced)
        if not found and undecided:
            return Verdict.unknown(
                ID, f"the element types the branches produce are not established: {brief(undecided, 3)}", SEVERITY
            )
    return LISTING.verdict(found, ID, SEVERITY)
