"""GRAPH-C1-SOURCES: no operation writes a graph input or an initialized tensor."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, seed_example, tensors

pytestmark = pytest.mark.rule("GRAPH-C1-SOURCES")

ID = "GRAPH-C1-SOURCES"


def kinds(v: object) -> set[tuple[str, str, str]]:
    return {(f["scope"], f["tensor"], f["kind"]) for f in data(v)["violations"]}  # type: ignore[arg-type]


def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


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


def test_writing_a_tensor_twice_is_another_rule() -> None:
    ops = [op("Relu", ["x"], ["y"]), op("Neg", ["x"], ["y"])]
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops))).status is Status.PROVED


def test_a_body_writing_its_own_input_is_listed_in_its_scope() -> None:
    body = make_graph("body", ["i", "k"], ["k"], [op("Relu", ["k"], ["k"])])
    g = make_graph("main", ["c"], ["y"], [op("Loop", ["", "c"], ["y"], name="l", body=body)])
    assert kinds(run(ID, model(g))) == {("main/Loop:l.body", "k", "assigns a graph input")}
