"""GRAPH-C1 as SMT: single assignment and shadowing, with witnesses worded as the direct rule words them."""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_operation
from tests.common.smtkit import MODES, direct, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-C1")


@pytest.mark.parametrize("mode", MODES)
def test_single_assignment(mode: str) -> None:
    ok = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",))]))
    assert smt(ok, mode)["GRAPH-C1"].status is Status.PROVED
    two = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",), "r"), op("Neg", ("x",), ("y",), "n")]))
    v = smt(two, mode)["GRAPH-C1"]
    assert v.status is Status.VIOLATED and v.witness is not None
    (found,) = v.witness.data["violations"]
    assert found["tensor"] == "y" and found["kind"] == "assigned more than once"
    assert [p["operation"] for p in found["producers"]] == ["Relu:r", "Neg:n"]
    assigns_input = model(g(["x"], ["x"], [op("Relu", ("x",), ("x",))]))
    assert smt(assigns_input, mode)["GRAPH-C1"].witness.data["violations"][0]["kind"] == "assigns a graph input"  # type: ignore[union-attr]


def test_input_with_default_value_is_not_a_double_assignment() -> None:
    m = model(g(["x", "w"], ["y"], [op("Add", ("x", "w"), ("y",))], {"w": 1.0}))
    assert smt(m)["GRAPH-C1"].status is Status.PROVED


def test_shadowing_across_scopes() -> None:
    then_g = g([], ["h"], [op("Identity", ("x",), ("h",))])
    else_g = g([], ["h2"], [op("Identity", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    ok = model(g(["x", "c"], ["y"], [if_op]))
    assert smt(ok)["GRAPH-C1"].status is Status.PROVED  # siblings may reuse names; no outer clash
    then_bad = g([], ["x2"], [op("Identity", ("x",), ("x2",))])
    if_bad = make_operation("If", ["c"], ["x2"], name="if", then_branch=then_bad, else_branch=else_g)
    bad = model(g(["x", "c"], ["x2"], [if_bad]))
    v = smt(bad)["GRAPH-C1"]
    assert v.status is Status.VIOLATED and v.witness is not None
    shadow = next(f for f in v.witness.data["violations"] if f["kind"] == "shadows an outer name")
    found = direct(bad)["GRAPH-C1"].witness
    assert found is not None
    outer = next(f for f in found.data["violations"] if f["kind"] == "shadows an outer name")["outer"]["scope"]
    assert shadow["outer_scope"] == outer != shadow["scope"]  # the enclosing graph the name is defined in


@pytest.mark.parametrize("mode", MODES)
def test_shadowing_conflicts_are_listed_by_name_as_the_direct_rule_lists_them(mode: str) -> None:
    """GRAPH-C1's witness lists a scope's shadowing conflicts by tensor name, as the direct rule does, not in
    the order the branch defines them (here ``z`` is written before ``a``)."""
    ops = [op("Identity", ("x",), ("z",)), op("Identity", ("x",), ("a",)), op("Add", ("a", "z"), ("h",))]
    else_g = g([], ["k"], [op("Neg", ("x",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=g([], ["h"], ops), else_branch=else_g)
    m = model(g(["x", "c", "z", "a"], ["y"], [if_op]))

    def shadowed(v: Any) -> list[tuple[str, str]]:
        assert v.status is Status.VIOLATED and v.witness is not None
        return [(x["scope"], x["tensor"]) for x in v.witness.data["violations"] if x["kind"] == "shadows an outer name"]

    expected = [("g/If:if.then_branch", "a"), ("g/If:if.then_branch", "z")]
    assert shadowed(smt(m, mode)["GRAPH-C1"]) == shadowed(direct(m)["GRAPH-C1"]) == expected


@pytest.mark.parametrize("mode", MODES)
def test_double_definitions_are_listed_by_name_as_the_direct_rule_lists_them(mode: str) -> None:
    """GRAPH-C1 lists a scope's tensors assigned twice, then its graph inputs assigned, each kind by tensor
    name: here ``z`` is written twice before ``a`` is, and the input ``q`` comes before ``b``."""
    ops = [op("Neg", ("x",), (t,), f"{t}{i}") for t in ("z", "a", "q", "b") for i in range(1 if t in "qb" else 2)]
    m = model(g(["x", "q", "b"], ["z", "a"], ops))

    def listed(v: Any) -> list[tuple[str, str]]:
        assert v.status is Status.VIOLATED and v.witness is not None
        return [(x["kind"], x["tensor"]) for x in v.witness.data["violations"]]

    expected = [
        ("assigned more than once", "a"),
        ("assigned more than once", "z"),
        ("assigns a graph input", "b"),
        ("assigns a graph input", "q"),
    ]
    assert listed(smt(m, mode)["GRAPH-C1"]) == listed(direct(m)["GRAPH-C1"]) == expected


@pytest.mark.parametrize("mode", MODES)
def test_a_graph_with_one_definition_proves_single_assignment(mode: str) -> None:
    """One definition fact (the graph input, passed straight out): nothing to be distinct from, so GRAPH-C1's
    distinctness is the trivially true assertion, answered ``sat`` by z3, in both engines."""
    from sonnx.smt import run_smt

    m = model(g(["x"], ["x"], []))
    run = run_smt(m, mode=mode)
    assert next(v for v in run.verdicts if v.rule_id == "GRAPH-C1").status is Status.PROVED
    assert [o.answer for o in run.obligations if o.rule_id == "GRAPH-C1"] == ["sat"]
    assert direct(m)["GRAPH-C1"].status is Status.PROVED
