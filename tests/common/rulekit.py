"""Helpers for the rule tests: building models, running one rule, and an independent oracle.

The oracle recomputes every structural property from first principles with
plain sets, recursion over the (small) test graphs and networkx, without
touching :mod:`sonnx.model.structure`, so that comparing it with the rules
checks the fast implementation against a straightforward one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np

from sonnx.base.verdict import Status, Verdict
from sonnx.loader.derived import ReadAgain
from sonnx.model.graph import Function, Graph, InitialValue, Model, Operation, Tensor, TensorType, make_graph
from sonnx.rules.base import CheckConfig, CheckContext
from sonnx.rules.registry import rule_by_id
from sonnx.smt.engine import run_smt


def value(v: Any, data_type: int = 1) -> InitialValue:
    """An in-memory initial value (for initializers and Constant attributes)."""
    arr = np.asarray(v)
    return InitialValue(data_type, tuple(arr.shape), False, None, lambda: arr)


def init(name: str, v: Any = 0.0, data_type: int = 1, ty: TensorType | None = None) -> Tensor:
    return Tensor(name, ty, value(v, data_type))


def tensors(*items: Tensor) -> dict[str, Tensor]:
    return {t.name: t for t in items}


def model(graph: Graph, opset: int = 17, **kw: Any) -> Model:
    kw.setdefault("opset_imports", {"": opset})
    return Model(graph, kw.pop("ir_version", 8), **kw)


def function(domain: str, name: str) -> Function:
    """A model-local function ``domain::name`` whose body is one Abs (for the function-shadowing cases)."""
    return Function(domain, name, make_graph(name, ["a"], ["b"], [Operation("Abs", "", "", ("a",), ("b",))]))


def with_functions(*functions: Function, opsets: dict[str, int] | None = None) -> Model:
    """A one-Identity main graph carrying ``functions`` (ONNX opset 17 unless ``opsets`` says otherwise)."""
    g = make_graph("main", ["x"], ["y"], [Operation("Identity", "", "", ("x",), ("y",))])
    return model(g, opset_imports=opsets or {"": 17}, functions=functions)


FROM_FILE = ReadAgain()
"""The derived types :func:`run` gives when the config gives none: those of the model's own file, when the file
still holds the model (as the check of that file gets them), else none."""


def run(rule_id: str, m: Model, config: CheckConfig | None = None) -> Verdict:
    """Run one rule's check directly (exceptions propagate, unlike in the registry loop).

    The rules that read the types onnx derives (GRAPH-IF-BRANCHES, STRICT-BROADCAST) get them from ``config``,
    else from the model's file (:data:`FROM_FILE`)."""
    cfg = config or CheckConfig()
    if cfg.derived_types is None:
        cfg = dataclasses.replace(cfg, derived_types=FROM_FILE)
    v = rule_by_id(rule_id).check(CheckContext(m, cfg))
    assert v.rule_id == rule_id
    return v


SMT_MODES = ("search", "certificate")


def every_engine(rule_id: str, m: Model) -> list[Verdict]:
    """The rule's verdict from the direct check, then from the SMT engine in each of its modes."""
    return [run(rule_id, m), *({v.rule_id: v for v in run_smt(m, mode=mode).verdicts}[rule_id] for mode in SMT_MODES)]


def engine_statuses(rule_id: str, m: Model) -> set[Status]:
    """The statuses :func:`every_engine` gives: one element when the engines agree."""
    return {v.status for v in every_engine(rule_id, m)}


def status(rule_id: str, m: Model, config: CheckConfig | None = None) -> Status:
    return run(rule_id, m, config).status


def data(v: Verdict) -> dict[str, Any]:
    assert v.witness is not None, v
    return dict(v.witness.data)


def seed_example() -> Graph:
    """The four-node example graph of the SONNX informal specification (its Sub result is unused)."""
    ops = [
        Operation("Add", "", "", ("I1", "I2"), ("O1",)),
        Operation("Constant", "", "", (), ("op2_out",)),
        Operation("Mul", "", "", ("O1", "op2_out"), ("O2",)),
        Operation("Sub", "", "", ("I1", "I2"), ("op4_out",)),
    ]
    return make_graph("Test", ["I1", "I2"], ["O1", "O2"], ops)


# -- oracle -----------------------------------------------------------------------------------------


class OScope:
    """One graph as the oracle sees it: path, graph, enclosing scopes (outermost first)."""

    def __init__(self, path: str, graph: Graph, ancestors: list[OScope]) -> None:
        self.path = path
        self.graph = graph
        self.ancestors = ancestors

    @property
    def initializers(self) -> set[str]:
        return {n for n, t in self.graph.tensors.items() if t.initial_value is not None}

    @property
    def produced(self) -> set[str]:
        return {o for op in self.graph.operations for o in op.output_mapping if o}

    @property
    def defined(self) -> set[str]:
        return set(self.graph.inputs) | self.initializers | self.produced

    def outer_defined(self) -> set[str]:
        out: set[str] = set()
        for a in self.ancestors:
            out |= a.defined
        return out


def oracle_scopes(g: Graph) -> list[OScope]:
    """Every graph, pre-order, with paths in the format of ``Graph.nested`` (recursive: test sizes only)."""
    found: list[OScope] = []

    def visit(path: str, graph: Graph, ancestors: list[OScope]) -> None:
        me = OScope(path, graph, ancestors)
        found.append(me)
        for op in graph.operations:
            for a in op.attributes:
                subs = [(a.name, a.value)] if a.type == "GRAPH" else []
                if a.type == "GRAPHS":
                    subs = [(f"{a.name}[{i}]", s) for i, s in enumerate(a.value)]
                for attr, sub in subs:
                    visit(f"{path}/{op.label}.{attr}", sub, [*ancestors, me])

    visit(g.name or "main", g, [])
    return found


def free_names(g: Graph) -> set[str]:
    """Names ``g`` (or anything nested in it) reads or outputs without defining them."""
    read: set[str] = set(g.outputs)
    for op in g.operations:
        read |= required(op)
    defined = set(g.inputs) | {n for n, t in g.tensors.items() if t.initial_value is not None}
    defined |= {o for op in g.operations for o in op.output_mapping if o}
    return read - defined


def required(op: Operation) -> set[str]:
    names = {n for n in op.input_mapping if n}
    for a in op.attributes:
        subs = [a.value] if a.type == "GRAPH" else list(a.value) if a.type == "GRAPHS" else []
        for sub in subs:
            names |= free_names(sub)
    return names


def dependency_graph(g: Graph) -> nx.DiGraph[int]:
    dg: nx.DiGraph[int] = nx.DiGraph()
    ops = g.operations
    dg.add_nodes_from(range(len(ops)))
    reqs = [required(op) for op in ops]
    for a, op in enumerate(ops):
        outs = {o for o in op.output_mapping if o}
        for b in range(len(ops)):
            if outs & reqs[b]:
                dg.add_edge(a, b)
    return dg


def o_acyclic(sc: OScope) -> bool:
    return nx.is_directed_acyclic_graph(dependency_graph(sc.graph))


def o_shortest_cycle_through(g: Graph, v: int) -> int:
    dg = dependency_graph(g)
    if dg.has_edge(v, v):
        return 1
    lengths = nx.single_source_shortest_path_length(dg, v)
    return min(lengths[p] + 1 for p in dg.predecessors(v) if p in lengths)


def o_c1(sc: OScope) -> set[tuple[str, str, str]]:
    """(scope, tensor, kind) of every single-assignment fault."""
    entries: dict[str, int] = {}
    for op in sc.graph.operations:
        for o in op.output_mapping:
            if o:
                entries[o] = entries.get(o, 0) + 1
    found = {(sc.path, n, "assigned more than once") for n, c in entries.items() if c > 1}
    found |= {(sc.path, n, "assigns a graph input") for n in set(sc.graph.inputs) & set(entries)}
    found |= {
        (sc.path, n, "assigns an initialized tensor") for n in (sc.initializers - set(sc.graph.inputs)) & set(entries)
    }
    found |= {(sc.path, n, "shadows an outer name") for n in sc.defined & sc.outer_defined()}
    return found


def o_unused_inputs(sc: OScope) -> set[str]:
    used: set[str] = set()
    for op in sc.graph.operations:
        used |= required(op)
    return set(sc.graph.inputs) - used


def o_defined(sc: OScope) -> set[str]:
    """Naive definedness fixpoint: sweep the operations until nothing changes."""
    g = sc.graph
    defined = set(g.inputs) | sc.initializers | (free_names(g) & sc.outer_defined())
    fired: set[int] = set()
    changed = True
    while changed:
        changed = False
        for j, op in enumerate(g.operations):
            if j not in fired and required(op) <= defined:
                fired.add(j)
                defined |= {o for o in op.output_mapping if o}
                changed = True
    return defined


def o_consumed(g: Graph) -> set[str]:
    used = set(g.outputs)
    for op in g.operations:
        used |= required(op)
    return used


def o_dead(sc: OScope) -> set[int]:
    used = o_consumed(sc.graph)
    return {j for j, op in enumerate(sc.graph.operations) if not ({o for o in op.output_mapping if o} & used)}


def o_unused_outputs(sc: OScope) -> set[tuple[int, int]]:
    used = o_consumed(sc.graph)
    return {
        (j, k)
        for j, op in enumerate(sc.graph.operations)
        for k, o in enumerate(op.output_mapping)
        if o and o not in used
    }


def o_non_contributing(sc: OScope) -> set[int]:
    g = sc.graph
    dg = dependency_graph(g)
    sinks = {j for j, op in enumerate(g.operations) if set(op.output_mapping) & set(g.outputs) - {""}}
    live = set(sinks)
    for s in sinks:
        live |= nx.ancestors(dg, s)
    return set(range(len(g.operations))) - live


def scoped(items: Iterable[dict[str, Any]], *keys: str) -> set[tuple[Any, ...]]:
    return {tuple(item[k] for k in keys) for item in items}
