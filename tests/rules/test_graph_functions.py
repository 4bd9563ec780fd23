"""GRAPH-FUNCTIONS: recursion among model-local functions, from the loader and from the call graph."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Function, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run, seed_example

pytestmark = pytest.mark.rule("GRAPH-FUNCTIONS")

ID = "GRAPH-FUNCTIONS"


def fn(name: str, *calls: str, nested: bool = False) -> Function:
    ops = [op(c, ["a"], ["a2"], domain="local") for c in calls] or [op("Relu", ["a"], ["a2"])]
    body = make_graph(name, ["a"], ["a2"], ops)
    if nested:  # the call sits inside an If of the body
        other = make_graph("else", [], ["b"], [op("Relu", ["a"], ["b"])])
        body = make_graph(name, ["a", "c"], ["a2"], [op("If", ["c"], ["a2"], then_branch=body, else_branch=other)])
    return Function("local", name, body)


def test_no_function_no_recursion() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


def test_non_recursive_functions_pass() -> None:
    m = model(seed_example(), functions=(fn("f", "g"), fn("g", "h"), fn("h")))
    assert run(ID, m).status is Status.PROVED


def test_chain_recorded_by_the_loader() -> None:
    m = model(seed_example(), call_cycles=(("local.f", "local.g", "local.f"),))
    v = run(ID, m)
    assert v.status is Status.VIOLATED
    assert data(v)["chains"] == [{"chain": ["local.f", "local.g", "local.f"], "sources": ["loader"]}]


def test_indirect_recursion_found_in_the_call_graph() -> None:
    m = model(seed_example(), functions=(fn("g", "f"), fn("f", "h", nested=True), fn("h", "g"), fn("z")))
    (entry,) = data(run(ID, m))["chains"]
    assert entry["chain"] == ["local.f", "local.h", "local.g", "local.f"]
    assert entry["sources"] == ["call graph"]
    callers = [(c["caller"], c["operation"]) for c in entry["calls"]]
    assert callers == [("local.f", "h:a2"), ("local.h", "g:a2"), ("local.g", "f:a2")]
    assert entry["calls"][0]["scope"] == "f/If:a2.then_branch"
    assert [c["index"] for c in entry["calls"]] == [0, 0, 0]  # each call's position in its graph


def test_direct_recursion_and_agreement_with_the_loader() -> None:
    m = model(seed_example(), functions=(fn("f", "f"),), call_cycles=(("local.f", "local.f"),))
    (entry,) = data(run(ID, m))["chains"]
    assert entry["chain"] == ["local.f", "local.f"] and entry["sources"] == ["loader", "call graph"]


def test_overloaded_functions_are_left_to_the_loader() -> None:
    # two overloads of local.f: which one a call means is not visible here
    m = model(seed_example(), functions=(fn("f", "f"), fn("f")))
    assert run(ID, m).status is Status.PROVED
