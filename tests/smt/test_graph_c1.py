"""GRAPH-C1 as SMT: no tensor written twice, with witnesses worded as the direct rule words them."""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status
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
    twice = model(g(["x"], ["a"], [op("Split", ("x",), ("a", "a"), "s")]))
    (found,) = smt(twice, mode)["GRAPH-C1"].witness.data["violations"]  # type: ignore[union-attr]
    assert [(p["operation"], p["output"]) for p in found["producers"]] == [("Split:s", 0), ("Split:s", 1)]
    assigns_input = model(g(["x"], ["x"], [op("Relu", ("x",), ("x",))]))
    assert smt(assigns_input, mode)["GRAPH-C1"].status is Status.PROVED  # GRAPH-C1-SOURCES' business


@pytest.mark.parametrize("mode", MODES)
def test_double_definitions_are_listed_by_name_as_the_direct_rule_lists_them(mode: str) -> None:
    """GRAPH-C1 lists a scope's tensors written twice by tensor name (``z`` is written twice before ``a``
    is); GRAPH-C1-SOURCES lists the graph inputs written, by name (``q`` before ``b``)."""
    ops = [op("Neg", ("x",), (t,), f"{t}{i}") for t in ("z", "a", "q", "b") for i in range(1 if t in "qb" else 2)]
    m = model(g(["x", "q", "b"], ["z", "a"], ops))

    def listed(v: Any) -> list[tuple[str, str]]:
        assert v.status is Status.VIOLATED and v.witness is not None
        return [(x["kind"], x["tensor"]) for x in v.witness.data["violations"]]

    expected = [("assigned more than once", "a"), ("assigned more than once", "z")]
    assert listed(smt(m, mode)["GRAPH-C1"]) == listed(direct(m)["GRAPH-C1"]) == expected
    sources = [("assigns a graph input", "b"), ("assigns a graph input", "q")]
    assert listed(smt(m, mode)["GRAPH-C1-SOURCES"]) == listed(direct(m)["GRAPH-C1-SOURCES"]) == sources


@pytest.mark.parametrize("mode", MODES)
def test_a_graph_with_one_definition_proves_single_assignment(mode: str) -> None:
    """No write fact (the graph input, passed straight out): nothing to be distinct, so GRAPH-C1's
    distinctness is the trivially true assertion, answered ``sat`` by z3, in both engines."""
    from sonnx.smt import run_smt

    m = model(g(["x"], ["x"], []))
    run = run_smt(m, mode=mode)
    assert next(v for v in run.verdicts if v.rule_id == "GRAPH-C1").status is Status.PROVED
    assert [o.answer for o in run.obligations if o.rule_id == "GRAPH-C1"] == ["sat"]
    assert direct(m)["GRAPH-C1"].status is Status.PROVED
