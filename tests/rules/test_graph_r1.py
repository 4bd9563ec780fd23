"""GRAPH-R1, GRAPH-R1-OUTPUTS and GRAPH-R1-TRANSITIVE."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Severity, Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run, seed_example

pytestmark = pytest.mark.rule("GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE")

R1, OUTPUTS, TRANSITIVE = "GRAPH-R1", "GRAPH-R1-OUTPUTS", "GRAPH-R1-TRANSITIVE"


def test_seed_example_has_a_dead_sub() -> None:
    m = model(seed_example())
    v = run(R1, m)
    assert v.status is Status.VIOLATED
    assert data(v) == {
        "count": 1,
        "dead": [{"scope": "Test", "index": 3, "operation": "Sub:op4_out", "outputs": ["op4_out"]}],
    }
    o = run(OUTPUTS, m)
    assert o.severity is Severity.WARNING
    assert data(o)["unused"] == [
        {"scope": "Test", "index": 3, "operation": "Sub:op4_out", "output": 0, "tensor": "op4_out"}
    ]
    t = run(TRANSITIVE, m)
    assert data(t)["non_contributing"] == [{"scope": "Test", "index": 3, "operation": "Sub:op4_out"}]


def test_clean_graph_passes_all_three() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["a"]), op("Neg", ["a"], ["y"])])
    for rule in (R1, OUTPUTS, TRANSITIVE):
        assert run(rule, model(g)).status is Status.PROVED


def test_unused_dropout_mask_is_only_a_warning() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y", "mask"], name="drop")])
    assert run(R1, model(g)).status is Status.PROVED
    assert run(TRANSITIVE, model(g)).status is Status.PROVED
    v = run(OUTPUTS, model(g))
    assert data(v)["unused"] == [{"scope": "g", "index": 0, "operation": "Dropout:drop", "output": 1, "tensor": "mask"}]


def test_transitive_rule_lists_the_whole_dead_branch() -> None:
    ops = [op("Relu", ["x"], ["a"]), op("Neg", ["a"], ["b"]), op("Abs", ["x"], ["y"])]
    g = make_graph("g", ["x"], ["y"], ops)
    assert [d["index"] for d in data(run(R1, model(g)))["dead"]] == [1]
    assert [d["index"] for d in data(run(TRANSITIVE, model(g)))["non_contributing"]] == [0, 1]


def test_operation_without_outputs_is_dead() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"]), op("Print", ["x"], [])])
    assert data(run(R1, model(g)))["dead"] == [
        {"scope": "g", "index": 1, "operation": "Print:<no output>", "outputs": []}
    ]


def test_cycle_cut_off_from_the_outputs_is_caught_by_the_transitive_rule_only() -> None:
    ops = [op("Add", ["x", "b"], ["a"]), op("Relu", ["a"], ["b"]), op("Neg", ["x"], ["y"])]
    g = make_graph("g", ["x"], ["y"], ops)
    assert run(R1, model(g)).status is Status.PROVED
    assert [d["index"] for d in data(run(TRANSITIVE, model(g)))["non_contributing"]] == [0, 1]


def test_use_through_a_nested_graph_counts() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["h"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Relu", ["x"], ["e"])])
    ops = [op("Neg", ["x"], ["h"]), op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    g = make_graph("main", ["c", "x"], ["y"], ops)
    for rule in (R1, OUTPUTS, TRANSITIVE):
        assert run(rule, model(g)).status is Status.PROVED


def test_dead_operation_inside_a_branch() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"]), op("Neg", ["x"], ["junk"])])
    else_g = make_graph("else", [], ["e"], [op("Relu", ["x"], ["e"])])
    g = make_graph(
        "main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)]
    )
    v = run(R1, model(g))
    assert data(v)["dead"] == [
        {"scope": "main/If:s.then_branch", "index": 1, "operation": "Neg:junk", "outputs": ["junk"]}
    ]
    assert "main/If:s.then_branch" in v.witness.summary  # type: ignore[union-attr]


def test_witness_is_bounded_but_counts_everything() -> None:
    ops = [op("Relu", ["x"], [f"d{i}"]) for i in range(150)] + [op("Neg", ["x"], ["y"])]
    d = data(run(R1, model(make_graph("g", ["x"], ["y"], ops))))
    assert d["count"] == 150 and len(d["dead"]) == 100
    assert [x["index"] for x in d["dead"]] == list(range(100))
