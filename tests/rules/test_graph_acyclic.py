"""GRAPH-ACYCLIC: cycles through explicit and implicit inputs, file order, witnesses."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run, seed_example

pytestmark = pytest.mark.rule("GRAPH-ACYCLIC")

ID = "GRAPH-ACYCLIC"


def test_seed_example_is_acyclic() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_unsorted_acyclic_graph_passes() -> None:
    ops = [op("Relu", ["b"], ["c"]), op("Relu", ["a"], ["b"]), op("Relu", ["x"], ["a"])]
    assert run(ID, model(make_graph("g", ["x"], ["c"], ops))).status is Status.PROVED


def test_three_cycle_witness_links_each_step() -> None:
    ops = [
        op("Add", ["x", "c"], ["a"], name="first"),
        op("Relu", ["a"], ["b"]),
        op("Neg", ["b"], ["c"]),
        op("Abs", ["a"], ["y"]),
    ]
    v = run(ID, model(make_graph("g", ["x"], ["y"], ops)))
    assert v.status is Status.VIOLATED
    d = data(v)
    assert d["scope"] == "g" and d["length"] == 3
    steps = [(s["index"], s["operation"], s["tensor"]) for s in d["cycle"]]
    # a rotation of first -a-> Relu -b-> Neg -c-> first
    k = [s[0] for s in steps].index(0)
    steps = steps[k:] + steps[:k]
    assert steps == [(0, "Add:first", "a"), (1, "Relu:b", "b"), (2, "Neg:c", "c")]
    assert d["cyclic_graphs"] == ["g"] and d["cyclic_graph_count"] == 1
    assert "cycle of 3 operations" in v.witness.summary  # type: ignore[union-attr]


def test_self_loop_is_a_cycle_of_length_one() -> None:
    ops = [op("Add", ["x", "s"], ["s"]), op("Relu", ["s"], ["y"])]
    d = data(run(ID, model(make_graph("g", ["x"], ["y"], ops))))
    assert d["length"] == 1
    assert d["cycle"] == [{"index": 0, "operation": "Add:s", "tensor": "s"}]


def test_cycle_through_an_implicit_input() -> None:
    # The then-branch reads y, which is computed from the If's own output.
    then_g = make_graph("then", [], ["t"], [op("Identity", ["y"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Identity", ["x"], ["e"])])
    ops = [
        op("If", ["c"], ["r"], name="cond", then_branch=then_g, else_branch=else_g),
        op("Relu", ["r"], ["y"]),
    ]
    d = data(run(ID, model(make_graph("g", ["c", "x"], ["y"], ops))))
    assert d["length"] == 2
    links = {(s["operation"], s["tensor"]) for s in d["cycle"]}
    assert links == {("If:cond", "r"), ("Relu:y", "y")}


def test_cycle_inside_a_nested_graph_names_the_scope() -> None:
    body = make_graph("then", [], ["p"], [op("Relu", ["q"], ["p"]), op("Neg", ["p"], ["q"])])
    other = make_graph("else", [], ["z"], [op("Identity", ["x"], ["z"])])
    ops = [op("If", ["c"], ["y"], name="branch", then_branch=body, else_branch=other)]
    v = run(ID, model(make_graph("main", ["c", "x"], ["y"], ops)))
    d = data(v)
    assert d["scope"] == "main/If:branch.then_branch"
    assert d["length"] == 2 and {s["operation"] for s in d["cycle"]} == {"Relu:p", "Neg:q"}
    assert "main/If:branch.then_branch" in v.witness.summary  # type: ignore[union-attr]


def test_cycle_only_reachable_through_a_long_tail_is_found() -> None:
    ops = [op("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(50)]
    ops.append(op("Add", ["t50", "x"], ["t0"]))
    ops.append(op("Relu", ["x"], ["y"]))
    d = data(run(ID, model(make_graph("g", ["x"], ["y"], ops))))
    assert d["length"] == 51
    assert len(d["cycle"]) == 51


def test_the_summary_counts_the_other_cyclic_graphs() -> None:
    loop_in = make_graph("then", [], ["p"], [op("Neg", ["q"], ["p"]), op("Relu", ["p"], ["q"])])
    other = make_graph("else", [], ["r"], [op("Relu", ["x"], ["r"])])
    branch = op("If", ["c"], ["y"], name="choose", then_branch=loop_in, else_branch=other)
    ops = [op("Add", ["x", "b"], ["a"]), op("Neg", ["a"], ["b"]), branch]
    v = run(ID, model(make_graph("g", ["x", "c"], ["y", "b"], ops)))
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.summary.endswith("; 1 more graph(s) have cycles"), v.witness.summary
    assert data(v)["cyclic_graph_count"] == 2
