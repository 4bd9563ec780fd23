"""Property tests: every structural verdict and witness against the independent oracle of rulekit.

Two generators: arbitrary small graphs (with nested If graphs that capture
outer names, shadow them or define their own), and valid DAGs listed in a
random order then mutated (an input re-wired, an operation deleted or
duplicated). For each graph, each rule's status must match the oracle, and
each witness must hold: a reported cycle is a cycle of the graph and a
shortest one through its first operation, a completeness chain follows real
producers back to a root, and the listed offenders are exactly the oracle's.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonnx.base.verdict import Status
from sonnx.model.graph import Graph, Operation, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import (
    OScope,
    data,
    init,
    model,
    o_acyclic,
    o_c1,
    o_dead,
    o_defined,
    o_non_contributing,
    o_shortest_cycle_through,
    o_unused_inputs,
    o_unused_outputs,
    oracle_scopes,
    required,
    run,
    scoped,
    tensors,
)

pytestmark = pytest.mark.rule(
    "GRAPH-ACYCLIC",
    "GRAPH-C1",
    "GRAPH-C1-SOURCES",
    "GRAPH-C1-SHADOWING",
    "GRAPH-C2",
    "GRAPH-C3",
    "GRAPH-R1",
    "GRAPH-R1-OUTPUTS",
    "GRAPH-R1-TRANSITIVE",
)

POOL = [f"t{i}" for i in range(6)]

C1_KINDS = {
    "GRAPH-C1": {"assigned more than once"},
    "GRAPH-C1-SOURCES": {"assigns a graph input", "assigns an initialized tensor"},
    "GRAPH-C1-SHADOWING": {"shadows an outer name"},
}
"""The kinds of the oracle's constraint-C1 faults that each of the three rules reports."""


def _pool(depth: int) -> list[str]:
    return POOL if depth == 0 else POOL[:3] + [f"d{depth}_{i}" for i in range(3)]


@st.composite
def _graphs(draw: st.DrawFn, depth: int) -> Graph:
    names, maybe = _NAMES[depth]
    inputs = draw(st.lists(names, unique=True, max_size=3))
    inits = draw(st.lists(names, unique=True, max_size=2))
    ops: list[Operation] = []
    for j in range(draw(st.integers(0, 7))):
        ins = draw(st.lists(maybe, max_size=3))
        outs = draw(st.lists(maybe, max_size=2))
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            then_g, else_g = draw(GRAPHS[depth + 1]), draw(GRAPHS[depth + 1])
            ops.append(op("If", ins[:1], outs, name=f"if{depth}_{j}", then_branch=then_g, else_branch=else_g))
        else:
            ops.append(Operation("Op", "", "", tuple(ins), tuple(outs)))
    outputs = draw(st.lists(names, max_size=3))
    return make_graph(f"g{depth}", inputs, outputs, ops, tensors(*(init(n) for n in inits)))


_NAMES = {d: (st.sampled_from(_pool(d)), st.sampled_from([*_pool(d), ""])) for d in range(3)}
GRAPHS = {d: _graphs(d) for d in range(3)}


@st.composite
def mutated_dags(draw: st.DrawFn) -> Graph:
    inputs = [f"x{i}" for i in range(draw(st.integers(1, 3)))]
    names = list(inputs)
    ops: list[Operation] = []
    for j in range(draw(st.integers(1, 10))):
        ins = tuple(draw(st.sampled_from(names)) for _ in range(draw(st.integers(1, 3))))
        ops.append(Operation("Op", "", "", ins, (f"v{j}",)))
        names.append(f"v{j}")
    outputs = [names[-1], *draw(st.lists(st.sampled_from(names[len(inputs) :]), max_size=2))]
    order = draw(st.permutations(range(len(ops))))
    ops = [ops[i] for i in order]
    kind = draw(st.sampled_from(["none", "rewire", "delete", "duplicate"]))
    j = draw(st.integers(0, len(ops) - 1))
    if kind == "rewire":
        k = draw(st.integers(0, len(ops[j].input_mapping) - 1))
        ins = list(ops[j].input_mapping)
        ins[k] = draw(st.sampled_from(names))
        ops[j] = ops[j]._replace(input_mapping=tuple(ins))
    elif kind == "delete":
        del ops[j]
    elif kind == "duplicate":
        ops.insert(draw(st.integers(0, len(ops))), ops[j])
    return make_graph("dag", inputs, outputs, ops)


def first_scope(scopes: list[OScope], path: str) -> OScope:
    return next(s for s in scopes if s.path == path)


def check_acyclic(g: Graph, scopes: list[OScope]) -> None:
    v = run("GRAPH-ACYCLIC", model(g))
    cyclic = [s for s in scopes if not o_acyclic(s)]
    assert (v.status is Status.VIOLATED) == bool(cyclic)
    if not cyclic:
        return
    d = data(v)
    json.dumps(d)
    assert d["scope"] == cyclic[0].path and d["cyclic_graph_count"] == len(cyclic)
    assert v.witness is not None
    more = len(cyclic) - 1
    assert v.witness.summary.endswith(f"; {more} more graph(s) have cycles") is (more > 0), v.witness.summary
    ops = cyclic[0].graph.operations
    cycle = d["cycle"]
    assert len(cycle) == d["length"] == len({s["index"] for s in cycle})
    for k, step in enumerate(cycle):
        a, b = step["index"], cycle[(k + 1) % len(cycle)]["index"]
        assert step["operation"] == ops[a].label
        assert step["tensor"] in ops[a].output_mapping and step["tensor"] in required(ops[b])
    assert d["length"] == o_shortest_cycle_through(cyclic[0].graph, cycle[0]["index"])


def check_completeness(g: Graph, scopes: list[OScope]) -> None:
    v = run("GRAPH-C3", model(g))
    defined = {id(s): o_defined(s) for s in scopes}
    expected = {(s.path, o) for s in scopes for o in s.graph.outputs if o not in defined[id(s)]}
    if not expected:
        assert v.status is Status.PROVED
        return
    d = data(v)
    json.dumps(d)
    assert scoped(d["undefined"], "scope", "output") == expected and d["count"] == len(expected)
    sc = next(s for s in scopes if s.path == d["chain_scope"] and d["undefined"][0]["output"] not in defined[id(s)])
    ops, known = sc.graph.operations, defined[id(sc)]
    chain = d["chain"]
    assert chain[0]["tensor"] == d["undefined"][0]["output"]
    for step, nxt in pairwise(chain):
        assert step["tensor"] not in known
        if step["producer"] is not None:
            p = step["producer"]["index"]
            assert step["tensor"] in ops[p].output_mapping and step["producer"]["operation"] == ops[p].label
            assert step["missing_input"] in required(ops[p]) and step["missing_input"] not in known
            assert nxt["tensor"] == step["missing_input"]
    last = chain[-1]
    assert last["producer"] is None and d["root"] == last["tensor"] and last["tensor"] not in known
    if d["ends"] == "cycle":
        assert last["repeats"] and last["tensor"] in [s["tensor"] for s in chain[:-1]]
    else:
        assert not any(last["tensor"] in o.output_mapping for o in ops)


def check_sets(g: Graph, scopes: list[OScope]) -> None:
    m = model(g)
    cases: dict[str, Any] = {
        **{
            rid: (
                {(s.path, n, k) for s in scopes for (_, n, k) in o_c1(s) if k in kinds},
                "violations",
                ("scope", "tensor", "kind"),
            )
            for rid, kinds in C1_KINDS.items()
        },
        "GRAPH-C2": ({(s.path, n) for s in scopes for n in o_unused_inputs(s)}, "unused", ("scope", "input")),
        "GRAPH-R1": (
            {(s.path, j) for s in scopes for j in o_dead(s)},
            "dead",
            ("scope", "index"),
        ),
        "GRAPH-R1-OUTPUTS": (
            {(s.path, j, k) for s in scopes for j, k in o_unused_outputs(s)},
            "unused",
            ("scope", "index", "output"),
        ),
        "GRAPH-R1-TRANSITIVE": (
            {(s.path, j) for s in scopes for j in o_non_contributing(s)},
            "non_contributing",
            ("scope", "index"),
        ),
    }
    for rule, (expected, key, fields) in cases.items():
        v = run(rule, m)
        assert (v.status is Status.VIOLATED) == bool(expected), rule
        if expected:
            d = data(v)
            assert scoped(d[key], *fields) == expected, rule
            json.dumps(d)


def check_everything(g: Graph) -> None:
    scopes = oracle_scopes(g)
    check_acyclic(g, scopes)
    check_completeness(g, scopes)
    check_sets(g, scopes)


@given(GRAPHS[0])
def test_property_random_graphs_match_the_oracle(g: Graph) -> None:
    check_everything(g)


@given(mutated_dags())
def test_property_mutated_dags_match_the_oracle(g: Graph) -> None:
    check_everything(g)
