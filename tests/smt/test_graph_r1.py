"""GRAPH-R1 as SMT: dead operations, in the main graph and in nested graphs, and the operation facts it states."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_operation
from sonnx.smt.facts import model_facts
from tests.common.smtkit import MODES, g, model, op, smt


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("mode", MODES)
def test_dead_operation_beside_a_nested_graph_without_one(mode: str) -> None:
    then_g = g([], ["h"], [op("Identity", ("x",), ("h",))])
    else_g = g([], ["h2"], [op("Neg", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y"], [if_op, op("Relu", ("x",), ("unused",), "dead")]))
    v = smt(m, mode)["GRAPH-R1"]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert [d["operation"] for d in v.witness.data["dead"]] == ["Relu:dead"]


@pytest.mark.rule("GRAPH-R1")
@pytest.mark.parametrize("mode", MODES)
def test_dead_operation_inside_a_branch(mode: str) -> None:
    # its global id is the branch's base plus its local index: the list must mark that operation
    then_g = g([], ["h"], [op("Relu", ("x",), ("h",)), op("Neg", ("x",), ("spare",), "dead")])
    else_g = g([], ["h2"], [op("Relu", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y", "z", "w"], [op("Abs", ("x",), ("z",)), op("Sin", ("x",), ("w",)), if_op]))
    v = smt(m, mode)["GRAPH-R1"]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    assert [(d["scope"], d["operation"]) for d in v.witness.data["dead"]] == [("g/If:if.then_branch", "Neg:dead")]


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_the_operation_facts_name_every_operation_of_every_scope_once() -> None:
    """GRAPH-R1's and GRAPH-R1-TRANSITIVE's ``(op o)`` facts: one per operation, nested graphs' included, none
    twice (a nested scope's numbers start at its ``op_base``)."""
    from sonnx.smt.encodings.graph_r1 import op_facts

    then_g = g([], ["h"], [op("Neg", ("x",), ("h",))])
    else_g = g([], ["k"], [op("Abs", ("x",), ("t",)), op("Neg", ("t",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    facts = model_facts(model(g(["x", "c"], ["z"], [if_op, op("Relu", ("y",), ("z",))])))
    assert [f.n for f in facts] == [2, 2, 1]
    assert op_facts(facts) == [f"(op {o})" for o in range(5)]
