"""GRAPH-C1: no tensor written at two output positions (two operations, or one operation twice)."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run, seed_example

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


def test_writes_of_sources_and_shadowing_are_other_rules() -> None:
    """A written input and a shadowing name are GRAPH-C1-SOURCES and GRAPH-C1-SHADOWING, not this rule."""
    then_g = make_graph("then", [], ["x"], [op("Relu", ["c"], ["x"])])
    else_g = make_graph("else", [], ["e"], [op("Neg", ["c"], ["e"])])
    ops = [op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g), op("Neg", ["x"], ["x"])]
    assert run(ID, model(make_graph("main", ["c", "x"], ["y"], ops))).status is Status.PROVED


def test_the_same_name_in_two_scopes_is_not_written_twice() -> None:
    """Sibling branches may each write a tensor of the same name: two graphs, two tensors."""
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"])])
    else_g = make_graph("else", [], ["t"], [op("Neg", ["x"], ["t"])])
    g = make_graph("main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)])
    assert run(ID, model(g)).status is Status.PROVED


def test_a_body_writing_twice_is_listed_in_its_scope() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"]), op("Neg", ["x"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Neg", ["x"], ["e"])])
    g = make_graph(
        "main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)]
    )
    assert kinds(run(ID, model(g))) == {("main/If:s.then_branch", "t", "assigned more than once")}
