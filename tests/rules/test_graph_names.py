"""GRAPH-NAMES: tensor names declared twice, node names shared across the model."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, seed_example, tensors

pytestmark = pytest.mark.rule("GRAPH-NAMES")

ID = "GRAPH-NAMES"


def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_redeclared_entries_are_violations() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], redeclared=(("w", "initializer"), ("y", "output")))
    d = data(run(ID, model(g)))
    assert d["duplicates"] == [
        {"kind": "tensor", "name": "w", "scope": "g", "problem": "declared more than once as initializer"},
        {"kind": "tensor", "name": "y", "scope": "g", "problem": "declared more than once as output"},
    ]


def test_input_listed_twice() -> None:
    g = make_graph("g", ["x", "x"], ["y"], [op("Relu", ["x"], ["y"])])
    (f,) = data(run(ID, model(g)))["duplicates"]
    assert f["problem"] == "listed more than once as a graph input"
    # when the loader already recorded it, it is reported once
    g = make_graph("g", ["x", "x"], ["y"], [op("Relu", ["x"], ["y"])], redeclared=(("x", "input"),))
    assert data(run(ID, model(g)))["count"] == 1


def test_input_with_initializer_is_allowed() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], tensors(init("x")))
    assert run(ID, model(g, ir_version=4)).status is Status.PROVED


def test_node_names_unique_across_nested_graphs() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"], name="n1")])
    else_g = make_graph("else", [], ["e"], [op("Relu", ["x"], ["e"], name="")])
    ops = [
        op("Neg", ["x"], ["a"], name="n1"),
        op("If", ["c"], ["y"], name="sel", then_branch=then_g, else_branch=else_g),
    ]
    ops.append(op("Abs", ["a"], ["z"], name=""))
    d = data(run(ID, model(make_graph("main", ["c", "x"], ["y", "z"], ops))))
    (f,) = d["duplicates"]
    assert f["kind"] == "node" and f["name"] == "n1"
    assert f["locations"] == [
        {"scope": "main", "index": 0, "operation": "Neg:n1"},
        {"scope": "main/If:sel.then_branch", "index": 0, "operation": "Relu:n1"},
    ]
