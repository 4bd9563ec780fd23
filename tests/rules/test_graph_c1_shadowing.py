"""GRAPH-C1-SHADOWING: a nested graph defines no name that an enclosing graph defines."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, seed_example, tensors

pytestmark = pytest.mark.rule("GRAPH-C1-SHADOWING")

ID = "GRAPH-C1-SHADOWING"


def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_nested_capture_is_not_shadowing() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Neg", ["x"], ["e"])])
    g = make_graph("main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)])
    assert run(ID, model(g)).status is Status.PROVED


def test_nested_graph_redefining_an_outer_name() -> None:
    then_g = make_graph("then", [], ["x"], [op("Relu", ["c"], ["x"])])  # main's input x
    body = make_graph("body", ["k", "w"], ["k"], [])  # a body input named like main's initializer w
    else_g = make_graph("else", [], ["e"], [op("Loop", ["", "c"], ["e"], name="loop", body=body)])
    g = make_graph(
        "main",
        ["c", "x"],
        ["y"],
        [op("If", ["c"], ["y"], name="sel", then_branch=then_g, else_branch=else_g)],
        tensors(init("w")),
    )
    v = run(ID, model(g))
    found = {f["tensor"]: f for f in data(v)["violations"]}
    assert set(found) == {"x", "w"}
    x = found["x"]
    assert x["kind"] == "shadows an outer name" and x["scope"] == "main/If:sel.then_branch"
    assert x["inner"]["role"] == "operation output"
    assert x["inner"]["producers"] == [{"scope": "main/If:sel.then_branch", "index": 0, "operation": "Relu:x"}]
    assert x["outer"] == {"scope": "main", "role": "graph input"}
    w = found["w"]
    assert w["scope"] == "main/If:sel.else_branch/Loop:loop.body"
    assert w["inner"] == {"scope": w["scope"], "role": "graph input"}
    assert w["outer"] == {"scope": "main", "role": "initializer"}


def test_shadowing_names_the_nearest_enclosing_definition() -> None:
    inner = make_graph("inner", [], ["v"], [op("Relu", ["c"], ["v"])])
    inner_else = make_graph("inner_else", [], ["w"], [op("Relu", ["c"], ["w"])])
    mid = make_graph(
        "mid",
        [],
        ["o"],
        [op("Neg", ["c"], ["v"]), op("If", ["c"], ["o"], name="in", then_branch=inner, else_branch=inner_else)],
    )
    mid_else = make_graph("mid_else", [], ["o2"], [op("Relu", ["c"], ["o2"])])
    g = make_graph("main", ["c"], ["y"], [op("If", ["c"], ["y"], name="out", then_branch=mid, else_branch=mid_else)])
    (f,) = data(run(ID, model(g)))["violations"]
    assert f["tensor"] == "v" and f["scope"] == "main/If:out.then_branch/If:in.then_branch"
    assert f["outer"]["scope"] == "main/If:out.then_branch"


def test_double_writes_and_written_inputs_are_other_rules() -> None:
    ops = [op("Relu", ["x"], ["y"]), op("Neg", ["x"], ["y"]), op("Abs", ["x"], ["x"])]
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops))).status is Status.PROVED
