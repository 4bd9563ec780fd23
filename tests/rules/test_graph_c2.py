"""GRAPH-C2: every graph input is read by an operation (directly or through a nested graph)."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run, seed_example

pytestmark = pytest.mark.rule("GRAPH-C2")

ID = "GRAPH-C2"


def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_unused_input_is_reported_with_its_position() -> None:
    g = make_graph("g", ["x", "spare"], ["y"], [op("Relu", ["x"], ["y"])])
    v = run(ID, model(g))
    assert v.status is Status.VIOLATED
    assert data(v)["unused"] == [{"scope": "g", "input": "spare", "position": 1}]


def test_input_passed_straight_to_an_output_is_not_a_use() -> None:
    g = make_graph("g", ["x", "through"], ["y", "through"], [op("Relu", ["x"], ["y"])])
    assert [u["input"] for u in data(run(ID, model(g)))["unused"]] == ["through"]


def test_input_read_only_by_a_nested_graph_is_used() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Neg", ["z"], ["e"])])
    g = make_graph("main", ["c", "x", "z"], ["y"], [op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)])
    assert run(ID, model(g)).status is Status.PROVED


def test_loop_body_may_ignore_the_inputs_loop_imposes() -> None:
    body = make_graph("body", ["i", "cond", "acc"], ["cond", "out"], [op("Relu", ["acc"], ["out"])])
    g = make_graph("main", ["n", "c", "a"], ["y"], [op("Loop", ["n", "c", "a"], ["y"], name="L", body=body)])
    assert run(ID, model(g)).status is Status.PROVED


def test_unused_carried_input_of_a_loop_body_is_reported_in_its_scope() -> None:
    body = make_graph("body", ["i", "cond", "acc", "spare"], ["cond", "out", "spare_out"],
                      [op("Relu", ["acc"], ["out"]), op("Identity", ["acc"], ["spare_out"])])
    g = make_graph("main", ["n", "c", "a", "b"], ["y", "z"],
                   [op("Loop", ["n", "c", "a", "b"], ["y", "z"], name="L", body=body)])
    v = run(ID, model(g))
    # only the loop-carried "spare" is the author's choice; i and cond are imposed by Loop
    assert data(v)["unused"] == [{"scope": "main/Loop:L.body", "input": "spare", "position": 3}]
    assert data(v)["count"] == 1


def test_same_names_in_a_scan_body_are_not_exempt() -> None:
    body = make_graph("body", ["i", "cond", "acc"], ["out"], [op("Relu", ["acc"], ["out"])])
    g = make_graph("main", ["a", "b", "c"], ["y"], [op("Scan", ["a", "b", "c"], ["y"], name="S", body=body)])
    v = run(ID, model(g))
    assert [u["input"] for u in data(v)["unused"]] == ["i", "cond"]
