"""GRAPH-C3: the definedness fixpoint, including nested scopes, and the chain witness."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, seed_example, tensors

ID = "GRAPH-C3"


@pytest.mark.rule("GRAPH-C3")
def test_seed_example_passes() -> None:
    assert run(ID, model(seed_example())).status is Status.PROVED


@pytest.mark.rule("GRAPH-C3")
def test_inputs_and_initializers_as_outputs_pass() -> None:
    g = make_graph("g", ["x"], ["x", "w", "y"], [op("Relu", ["w"], ["y"])], tensors(init("w")))
    assert run(ID, model(g)).status is Status.PROVED


@pytest.mark.rule("GRAPH-C3")
def test_unsorted_graph_passes() -> None:
    ops = [op("Relu", ["b"], ["y"]), op("Relu", ["x"], ["b"])]
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops))).status is Status.PROVED


@pytest.mark.rule("GRAPH-C3")
def test_chain_back_to_an_unassigned_tensor() -> None:
    ops = [op("Add", ["x", "ghost"], ["a"]), op("Relu", ["a"], ["y"]), op("Neg", ["x"], ["z"])]
    v = run(ID, model(make_graph("g", ["x"], ["y", "z"], ops)))
    assert v.status is Status.VIOLATED
    d = data(v)
    assert d["undefined"] == [{"scope": "g", "output": "y"}]
    assert d["chain"] == [
        {"tensor": "y", "producer": {"index": 1, "operation": "Relu:y"}, "missing_input": "a"},
        {"tensor": "a", "producer": {"index": 0, "operation": "Add:a"}, "missing_input": "ghost"},
        {"tensor": "ghost", "producer": None},
    ]
    assert d["root"] == "ghost" and d["ends"] == "no producer" and d["chain_length"] == 3


@pytest.mark.rule("GRAPH-C3")
def test_output_never_assigned() -> None:
    d = data(run(ID, model(make_graph("g", ["x"], ["nowhere"], [op("Relu", ["x"], ["y"])]))))
    assert d["chain"] == [{"tensor": "nowhere", "producer": None}] and d["ends"] == "no producer"


@pytest.mark.rule("GRAPH-C3")
def test_output_behind_a_cycle_ends_on_a_repeat() -> None:
    ops = [op("Add", ["x", "b"], ["a"]), op("Relu", ["a"], ["b"]), op("Neg", ["b"], ["y"])]
    d = data(run(ID, model(make_graph("g", ["x"], ["y"], ops))))
    assert d["ends"] == "cycle"
    assert [s["tensor"] for s in d["chain"]] == ["y", "b", "a", "b"]
    assert d["chain"][-1] == {"tensor": "b", "producer": None, "repeats": True}


@pytest.mark.rule("GRAPH-C3")
def test_nested_graph_may_use_names_defined_outside() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["h"], ["t"])])  # h is computed in main
    else_g = make_graph("else", [], ["w"], [])  # w is an initializer of main
    ops = [op("Neg", ["x"], ["h"]), op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    g = make_graph("main", ["c", "x"], ["y"], ops, tensors(init("w")))
    assert run(ID, model(g)).status is Status.PROVED


@pytest.mark.rule("GRAPH-C3")
def test_nested_capture_of_an_undefined_name_fails_in_both_scopes() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["ghost"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Relu", ["x"], ["e"])])
    ops = [op("If", ["c"], ["y"], name="sel", then_branch=then_g, else_branch=else_g)]
    d = data(run(ID, model(make_graph("main", ["c", "x"], ["y"], ops))))
    assert d["undefined"] == [{"scope": "main", "output": "y"}, {"scope": "main/If:sel.then_branch", "output": "t"}]
    # in main, the If waits for its implicit input "ghost"
    assert d["chain"][0]["missing_input"] == "ghost" and d["root"] == "ghost"


@pytest.mark.rule("GRAPH-C3")
def test_a_name_defined_only_in_a_sibling_branch_is_not_visible() -> None:
    then_g = make_graph("then", [], ["t"], [op("Relu", ["x"], ["t"])])
    else_g = make_graph("else", [], ["e"], [op("Relu", ["t"], ["e"])])  # t belongs to the other branch
    g = make_graph(
        "main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)]
    )
    d = data(run(ID, model(g)))
    assert {"scope": "main/If:s.else_branch", "output": "e"} in d["undefined"]


@pytest.mark.rule("GRAPH-C1", "GRAPH-C3")
def test_two_producers_one_of_which_fires() -> None:
    # single assignment is broken (GRAPH-C1), but y still gets a value from the first producer
    ops = [op("Relu", ["x"], ["y"]), op("Neg", ["ghost"], ["y"])]
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops))).status is Status.PROVED


@pytest.mark.rule("GRAPH-C3")
def test_assigned_input_stays_defined() -> None:
    ops = [op("Relu", ["q"], ["x"]), op("Neg", ["x"], ["y"])]
    assert run(ID, model(make_graph("g", ["x"], ["y"], ops))).status is Status.PROVED
