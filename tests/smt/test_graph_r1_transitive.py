"""GRAPH-R1-TRANSITIVE as SMT: operations that contribute to no graph output, against GRAPH-R1's direct uses."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from tests.common.smtkit import MODES, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")


@pytest.mark.parametrize("mode", MODES)
def test_dead_nodes_and_transitive(mode: str) -> None:
    m = model(
        g(
            ["x"],
            ["y"],
            [op("Relu", ("x",), ("y",)), op("Abs", ("x",), ("a",), "abs"), op("Neg", ("a",), ("n",), "neg")],
        )
    )
    s = smt(m, mode)
    r1, r1t = s["GRAPH-R1"], s["GRAPH-R1-TRANSITIVE"]
    assert r1.status is Status.VIOLATED and r1.witness is not None
    assert [d["operation"] for d in r1.witness.data["dead"]] == ["Neg:neg"]
    assert r1t.status is Status.VIOLATED and r1t.witness is not None
    assert [d["operation"] for d in r1t.witness.data["non_contributing"]] == ["Abs:abs", "Neg:neg"]
    ok = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",))]))
    assert smt(ok, mode)["GRAPH-R1"].status is Status.PROVED
    assert smt(ok, mode)["GRAPH-R1-TRANSITIVE"].status is Status.PROVED


def test_cycle_cut_off_from_outputs_is_caught_only_transitively() -> None:
    m = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",)), op("Add", ("x", "b"), ("a",)), op("Neg", ("a",), ("b",))]))
    s = smt(m)
    assert s["GRAPH-R1"].status is Status.PROVED
    assert s["GRAPH-R1-TRANSITIVE"].status is Status.VIOLATED
