"""The symbolic shape analysis of a main graph (spec/operators.rst, section 3, OP-SHAPES).

Every dimension of a main-graph input without an initial value becomes a
term: a fixed size is that number, a ``dim_param`` is one z3 integer variable
per name (shared by every input that uses the name), an unnamed unknown size
a variable of its own. Each variable ranges over the domain the user declares
(``--dims``) or the integers of at least 1. Stored values (initializers as the
loader reads them, ``Constant`` attributes) give fixed shapes, and their
elements when they form a small integer vector; value_info is never read.

The operations are visited in a topological order; the transfer function of
each (:data:`TRANSFER`) derives its outputs and records the conditions it
needs. An operation the analysis cannot derive (an operator it has no
function for, a shape input computed from values, a nested graph, an
operator of another domain) is recorded with its reason, and every tensor
that depends on it stays without a shape: the operations downstream are
counted as blocked, their conditions unproved. The operations of nested
graphs are not analysed; an operation that holds one is such an operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model.graph import Graph, InitialValue, Model, Operation
from .shapes_ops_basic import BASIC, MAX_FOLLOWED, Transfer, followed
from .shapes_ops_nn import NN
from .shapes_ops_select import SELECT
from .shapes_terms import DimRange, Term, dim_name
from .shapes_view import Info, Need, OpView, Uncovered

if TYPE_CHECKING:  # z3 is imported where a formula is built: the sonnx profile's check builds none
    import z3

TRANSFER: Mapping[str, Transfer] = {**BASIC, **SELECT, **NN}
"""The shape transfer function of each covered operator of the default domain."""


@dataclass
class Analysis:
    """What the analysis derived for the main graph of one model."""

    variables: dict[str, z3.ArithRef] = field(default_factory=dict)
    bounds: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    """Each variable's least and greatest value (None: unbounded above)."""
    infos: dict[str, Info] = field(default_factory=dict)
    needs: list[tuple[int, Need]] = field(default_factory=list)
    """Every condition an operation needs, with the operation's index in the main graph."""
    uncovered: list[tuple[int, str]] = field(default_factory=list)
    """The operations the analysis could not derive, with the reason (the first cause, not those downstream)."""
    blocked: int = 0
    """Operations left without shapes because an input of theirs has none."""
    unknown_inputs: list[str] = field(default_factory=list)
    """Graph inputs whose declared type gives no rank, with the reason."""
    defined: frozenset[str] = frozenset()
    """The main graph's inputs, initializers and operation outputs (a name read but absent here has no source)."""

    def domain(self) -> list[z3.BoolRef]:

        out: list[z3.BoolRef] = []
        for name, var in self.variables.items():
            lo, hi = self.bounds[name]
            out.append(var >= lo)
            if hi is not None:
                out.append(var <= hi)
        return out


def _variable(a: Analysis, name: str, ranges: Mapping[str, DimRange]) -> z3.ArithRef:
    import z3

    var = a.variables.get(name)
    if var is None:
        var = z3.Int(name)
        a.variables[name] = var
        declared = ranges.get(name)
        a.bounds[name] = (declared[1], declared[2]) if declared else (1, None)
    return var


def _stored_info(iv: InitialValue, read: bool) -> Info:
    shape = tuple(int(d) for d in iv.dims)
    if not read or iv.sparse or len(shape) > 1 or (shape and shape[0] > MAX_FOLLOWED):
        return Info(shape)
    ints, floats = followed(iv.read())
    return Info(shape, ints, floats)


def _constant(op: Operation) -> Info:
    for attr in op.attributes:
        if attr.type == "TENSOR":
            return _stored_info(attr.value, True)
        if attr.name == "value_int":
            return Info((), (int(attr.value),))
        if attr.name == "value_ints":
            return Info((len(attr.value),), tuple(int(x) for x in attr.value))
        if attr.name == "value_float":
            return Info((), None, (float(attr.value),))
        if attr.name == "value_floats":
            return Info((len(attr.value),), None, tuple(float(x) for x in attr.value))
    raise Uncovered("a Constant whose value kind the analysis does not read")


def order(graph: Graph) -> tuple[list[int], list[int]]:
    """A topological order of the operations, and the operations on or after a cycle."""
    produced = {n for op in graph.operations for n in op.output_mapping if n}
    waiting: dict[str, list[int]] = {}
    missing = []
    for j, op in enumerate(graph.operations):
        need = {n for n in op.required_inputs if n in produced}
        missing.append(len(need))
        for n in need:
            waiting.setdefault(n, []).append(j)
    ready = [j for j, m in enumerate(missing) if m == 0]
    done: list[int] = []
    while ready:
        j = ready.pop()
        done.append(j)
        for n in {o for o in graph.operations[j].output_mapping if o}:
            for k in waiting.pop(n, ()):
                missing[k] -= 1
                if missing[k] == 0:
                    ready.append(k)
    left = sorted(set(range(len(graph.operations))) - set(done))
    return sorted(done) if _sorted_ok(graph) else done, left


def _sorted_ok(graph: Graph) -> bool:
    seen: set[str] = set()
    produced = {n for op in graph.operations for n in op.output_mapping if n}
    for op in graph.operations:
        if any(n in produced and n not in seen for n in op.required_inputs):
            return False
        seen.update(o for o in op.output_mapping if o)
    return True


def analyse(model: Model, dims: Sequence[DimRange] = (), read_weights: bool = True) -> Analysis:
    """The shapes of the main graph's tensors as terms, and every operation's conditions (see the module text)."""
    g = model.graph
    a = Analysis()
    ranges = {r[0]: r for r in dims}
    for name in g.inputs:
        t = g.tensors.get(name)
        if t is not None and t.initial_value is not None:
            continue
        ty = t.type if t is not None else None
        if ty is None or ty.kind != "tensor" or ty.shape is None:
            a.unknown_inputs.append(f"graph input {name!r} declares no tensor rank")
            continue
        shape: list[Term] = []
        for k, d in enumerate(ty.shape):
            if isinstance(d, int) and d >= 0:
                shape.append(d)
            else:
                shape.append(_variable(a, dim_name(name, k, d), ranges))
        a.infos[name] = Info(tuple(shape))
    for name, t in g.tensors.items():
        if t.initial_value is not None:
            a.infos[name] = _stored_info(t.initial_value, read_weights)
    a.defined = frozenset([*g.inputs, *g.initialized, *(n for op in g.operations for n in op.output_mapping if n)])
    opset = int(model.opset_imports.get("", 0))
    done, cyclic = order(g)
    for j in cyclic:
        a.uncovered.append((j, "lies on a cycle"))
    for j in done:
        _visit(a, j, g.operations[j], opset)
    return a


def _visit(a: Analysis, j: int, op: Operation, opset: int) -> None:
    if op.subgraphs:
        a.uncovered.append((j, "holds a nested graph, which the analysis does not enter"))
        return
    if op.domain != "":
        a.uncovered.append((j, f"operator {op.domain}:{op.operator} is not covered"))
        return
    if op.operator == "Constant":
        try:
            info = _constant(op)
        except Uncovered as exc:
            a.uncovered.append((j, str(exc)))
            return
        if op.output_mapping and op.output_mapping[0]:
            a.infos[op.output_mapping[0]] = info
        return
    inputs = [a.infos.get(n) if n else None for n in op.input_mapping]
    lacking = [n for n in op.input_mapping if n and a.infos.get(n) is None]
    if lacking:
        if any(n not in a.defined for n in lacking):
            a.uncovered.append((j, f"reads {lacking[0]!r}, which nothing in the main graph defines"))
        else:
            a.blocked += 1
        return
    transfer = TRANSFER.get(op.operator)
    if transfer is None:
        a.uncovered.append((j, f"no shape transfer function for {op.operator}"))
        return
    view = OpView(op, opset, inputs)
    try:
        outs = transfer(view)
    except Uncovered as exc:
        a.needs.extend((j, n) for n in view.needs)
        a.uncovered.append((j, str(exc)))
        return
    a.needs.extend((j, n) for n in view.needs)
    for name, info in zip(op.output_mapping, outs, strict=False):
        if name:
            a.infos[name] = info
