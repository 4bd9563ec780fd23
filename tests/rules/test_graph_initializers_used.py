"""GRAPH-INITIALIZERS-USED: an initializer nothing reads is reported, as a warning, with its dimensions."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Severity, Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, tensors


@pytest.mark.rule("GRAPH-INITIALIZERS-USED")
def test_an_unread_initializer_is_a_warning_with_its_dims() -> None:
    inits = tensors(init("w", [1.0]), init("dead", [[0.0] * 3]))
    g = make_graph("g", ["x"], ["y"], [op("Add", ["x", "w"], ["y"])], inits)
    v = run("GRAPH-INITIALIZERS-USED", model(g))
    assert v.status is Status.VIOLATED and v.severity is Severity.WARNING
    assert data(v)["unused"] == [{"scope": "g", "initializer": "dead", "dims": [1, 3]}]


@pytest.mark.rule("GRAPH-INITIALIZERS-USED")
def test_an_unread_initializer_of_a_branch_is_found_after_a_graph_without_initializers() -> None:
    # the main graph has nothing to report; its branch's initializer is still looked at
    then = make_graph("then", [], ["a"], [op("Identity", ["x"], ["a"])], tensors(init("dead", [0.0])))
    other = make_graph("else", [], ["b"], [op("Identity", ["x"], ["b"])])
    g = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then, else_branch=other)])
    v = run("GRAPH-INITIALIZERS-USED", model(g))
    assert data(v)["unused"] == [{"scope": "g/If:s.then_branch", "initializer": "dead", "dims": [1]}]


@pytest.mark.rule("GRAPH-INITIALIZERS-USED")
def test_initializers_read_through_a_nested_graph_or_returned_are_used() -> None:
    then = make_graph("then", [], ["a"], [op("Identity", ["w"], ["a"])])
    other = make_graph("else", [], ["b"], [op("Identity", ["x"], ["b"])])
    ops = [op("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    g = make_graph("g", ["c", "x"], ["y", "out"], ops, tensors(init("w", [1.0]), init("out", [2.0])))
    assert run("GRAPH-INITIALIZERS-USED", model(g)).status is Status.PROVED


@pytest.mark.rule("GRAPH-C2", "GRAPH-INITIALIZERS-USED")
def test_an_initializer_that_is_also_an_input_is_left_to_c2() -> None:
    g = make_graph("g", ["x", "w"], ["y"], [op("Relu", ["x"], ["y"])], tensors(init("w", [1.0])))
    assert run("GRAPH-INITIALIZERS-USED", model(g)).status is Status.PROVED
    assert run("GRAPH-C2", model(g)).status is Status.VIOLATED
