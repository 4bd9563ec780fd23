"""GRAPH-C1: at most one assignment per tensor, none to inputs or initializers, no shadowing."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, seed_example, tensors

pytestmark = pytest.mark.rule("GRAPH-C1")

ID = "GRAPH-C1"


def kinds(v: object) -> set[tuple[str, str, str]]:
    return {(f["scope"], f["tensor"], f["kind"]) for f in data(v)["violations"]}  # type: ignore[arg-type]


def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_two_producers_are_listed() -> None:
    ops = [op("Relu", ["x"], ["y"]), op("Neg", ["x"], ["y"]), op("Abs", ["y"], ["z"])]
    v = run(ID, model(make_graph("g", ["x"], ["z"], ops)))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["violations"]
    assert f["kind"] == "assigned more than once" and f["tensor"] == "y"
    assert [(p["index"], p["operation"], p["output"]) for p in f["producers"]] == [(0, "Relu:y", 0), (1, "Neg:y", 0)]


def test_one_operation_assigning_twice() -> None:
    ops = [op("Split", ["x"], ["a", "a"])]
    (f,) = data(run(ID, model(make_graph("g", ["x"], ["a"], ops))))["violations"]
    assert [(p["index"], p["output"]) for p in f["producers"]] == [(0, 0), (0, 1)]


def test_assigning_an_input_or_an_initializer() -> None:
    ops = [op("Relu", ["x"], ["x"]), op("Neg", ["x"], ["w"]), op("Abs", ["x"], ["both"])]
    g = make_graph("g", ["x", "both"], ["w"], ops, tensors(init("w"), init("both")))
    assert kinds(run(ID, model(g))) == {
        ("g", "x", "assigns a graph input"),
        ("g", "w", "assigns an initialized tensor"),
        ("g", "both", "assigns a graph input"),  # an input with a default value is reported once
    }
    found = {f["tensor"]: f["producers"] for f in data(run(ID, model(g)))["violations"]}
    assert found["w"] == [{"scope": "g", "index": 1, "operation": "Neg:w"}]


def test_input_that_is_also_an_initializer_is_fine() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], tensors(init("x")))
    assert run(ID, model(g)).status is Status.PROVED


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
