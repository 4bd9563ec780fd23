"""Differential campaign: the direct engine and the SMT engine agree on random graphs.

Random graphs (nested If and Loop bodies, random and unknown operators,
initializers, omitted optional entries) and mutations of the shipped example
models (rewired input, deleted or duplicated operation, added random
operation) are checked by both engines, in search and certificate mode; every
rule both decide must get the same status (GRAPH-DETERMINISM included), and
GRAPH-DETERMINISM is also compared with a taint oracle written here. The CI
profile runs about 200 examples per test; ``make fuzz`` runs 10,000.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonnx.base.verdict import Status, Verdict
from sonnx.loader import load_model
from sonnx.model.graph import Graph, Model, Operation, make_graph, make_operation
from sonnx.model.structure import scopes
from sonnx.rules.base import CheckContext
from sonnx.rules.graph_attributes import blocked
from tests.common.smtkit import const, disagreements, model

pytestmark = pytest.mark.rule(
    "GRAPH-ACYCLIC",
    "GRAPH-C1",
    "GRAPH-C1-SOURCES",
    "GRAPH-C1-SHADOWING",
    "GRAPH-R2",
    "GRAPH-DETERMINISM",
    "GRAPH-ATTRIBUTES",
)

POOL = [f"t{i}" for i in range(6)]
KINDS = ["Add", "Relu", "Neg", "RandomUniformLike", "Mystery"]
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.onnx"))


def _op(kind: str, ins: tuple[str, ...], outs: tuple[str, ...], name: str) -> Operation:
    return Operation(kind, "com.acme" if kind == "Mystery" else "", name, ins, outs)


@st.composite
def graphs(draw: st.DrawFn, depth: int = 0) -> Graph:
    names = POOL if depth == 0 else POOL[:3] + [f"d{depth}_{i}" for i in range(3)]
    name = st.sampled_from(names)
    maybe = st.sampled_from([*names, ""])
    inputs = draw(st.lists(name, unique=True, max_size=3))
    inits = draw(st.lists(name, unique=True, max_size=2))
    ops: list[Operation] = []
    for j in range(draw(st.integers(0, 7))):
        ins = tuple(draw(st.lists(maybe, max_size=3)))
        outs = tuple(draw(st.lists(maybe, max_size=2)))
        choice = draw(st.integers(0, 9)) if depth < 2 else 9
        if choice == 0:
            ops.append(
                make_operation(
                    "If",
                    ins[:1],
                    outs,
                    name=f"if{depth}_{j}",
                    then_branch=draw(graphs(depth + 1)),
                    else_branch=draw(graphs(depth + 1)),
                )
            )
        elif choice == 1:
            ops.append(make_operation("Loop", ins, outs, name=f"loop{depth}_{j}", body=draw(graphs(depth + 1))))
        else:
            ops.append(_op(draw(st.sampled_from(KINDS)), ins, outs, f"n{depth}_{j}"))
    outputs = draw(st.lists(name, max_size=3))
    from sonnx.model.graph import Tensor

    return make_graph(f"g{depth}", inputs, outputs, ops, {n: Tensor(n, None, const(0.0)) for n in inits})


def oracle_deterministic(m: Model, r2: Verdict) -> str:
    """det / nondet / unknown by plain reachability from sources (acyclic, single-assignment graphs only).

    Sources are the operations the direct engine's GRAPH-R2 witness lists as nondeterministic; when that
    rule is UNKNOWN, operations of domains sonnx does not know, and those whose attributes GRAPH-ATTRIBUTES does
    not prove defined, are possible sources.
    """
    listed = {(d["scope"], d["index"]) for d in (r2.witness.data["nondeterministic"] if r2.witness else [])}
    maybe = r2.status is Status.UNKNOWN or bool(r2.witness and r2.witness.data.get("unknown_count"))
    ctx = CheckContext(m)
    paths = [sc.path for sc in scopes(ctx)]
    undefined = {(paths[i], j) for i, j in blocked(ctx)}  # GRAPH-ATTRIBUTES' operations without a proved meaning
    level_name = {0: "det", 1: "unknown", 2: "nondet"}

    def visit(path: str, h: Graph) -> int:
        src: dict[int, int] = {}
        for j, o in enumerate(h.operations):
            unknown = o.domain not in ("", "ai.onnx", "ai.onnx.ml") or (path, j) in undefined
            level = 2 if (path, j) in listed else 1 if maybe and unknown else 0
            for attr, sub in o.subgraphs:
                level = max(level, visit(f"{path}/{o.label}.{attr}", sub))
            src[j] = level
        taint: dict[str, int] = {}
        changed = True
        while changed:
            changed = False
            for j, o in enumerate(h.operations):
                level = max([src[j], *(taint.get(t, 0) for t in o.required_inputs)])
                for t in o.output_mapping:
                    if t and taint.get(t, 0) < level:
                        taint[t] = level
                        changed = True
        return max([taint.get(t, 0) for t in h.outputs] or [0])

    return level_name[visit(m.graph.name or "main", m.graph)]


def _check(m: Model) -> None:
    problems, s, d = disagreements(m)
    assert not problems, problems
    sem = s["GRAPH-DETERMINISM"]
    premises = ("GRAPH-ACYCLIC", "GRAPH-C1", "GRAPH-C1-SOURCES", "GRAPH-C1-SHADOWING")
    if all(s[rid].status is Status.PROVED for rid in premises):
        want = {"det": Status.PROVED, "nondet": Status.VIOLATED, "unknown": Status.UNKNOWN}[
            oracle_deterministic(m, d["GRAPH-R2"])
        ]
        if want is Status.UNKNOWN:
            assert sem.status in (Status.UNKNOWN, Status.VIOLATED), sem
        else:
            assert sem.status is want, (sem, want)
    else:
        assert sem.status is Status.UNKNOWN


@given(graphs())
def test_property_random_graphs_engines_agree(g: Graph) -> None:
    _check(model(g))


@st.composite
def mutated_examples(draw: st.DrawFn) -> Model:
    m = load_model(str(draw(st.sampled_from(EXAMPLES))))
    ops = list(m.graph.operations)
    names: set[str] = set(m.graph.inputs) | {o for op in ops for o in op.output_mapping if o}
    pool = sorted(names) or ["x"]
    # up to three mutations in a row (one alone exhausts its space at about 600 distinct models)
    for kind in draw(st.lists(st.sampled_from(["rewire", "delete", "duplicate", "random"]), max_size=3)):
        if not ops:
            break
        j = draw(st.integers(0, len(ops) - 1))
        if kind == "rewire" and ops[j].input_mapping:
            ins = list(ops[j].input_mapping)
            ins[draw(st.integers(0, len(ins) - 1))] = draw(st.sampled_from(pool))
            ops[j] = ops[j]._replace(input_mapping=tuple(ins))
        elif kind == "delete":
            del ops[j]
        elif kind == "duplicate":
            ops.insert(draw(st.integers(0, len(ops))), ops[j])
        elif kind == "random":
            ops.append(Operation("RandomUniformLike", "", "rnd", (draw(st.sampled_from(pool)),), ("rnd_out",)))
    g = m.graph
    return Model(
        Graph(g.name, g.inputs, g.outputs, g.tensors, tuple(ops)),
        m.ir_version,
        m.opset_imports,
        weights_loaded=m.weights_loaded,
    )


@given(mutated_examples())
def test_property_mutated_examples_engines_agree(m: Model) -> None:
    _check(m)
