"""GRAPH-C1-SOURCES as SMT: no operation writes a graph input or an initialized tensor."""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status
from tests.common.smtkit import MODES, direct, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-C1-SOURCES")

ID = "GRAPH-C1-SOURCES"


@pytest.mark.parametrize("mode", MODES)
def test_written_inputs_and_initializers(mode: str) -> None:
    ok = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",))]))
    assert smt(ok, mode)[ID].status is Status.PROVED
    ops = [op("Relu", ("x",), ("x",), "r"), op("Neg", ("x",), ("w",), "n"), op("Abs", ("x",), ("y",), "a")]
    bad = model(g(["x"], ["y"], ops, {"w": 1.0}))
    v = smt(bad, mode)[ID]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert [(f["kind"], f["tensor"]) for f in v.witness.data["violations"]] == [
        ("assigns a graph input", "x"),
        ("assigns an initialized tensor", "w"),
    ]
    assert v.witness.data == direct(bad)[ID].witness.data | {"mode": mode}  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_an_input_with_a_default_value_is_one_source(mode: str) -> None:
    m = model(g(["x", "w"], ["y"], [op("Add", ("x", "w"), ("y",))], {"w": 1.0}))
    assert smt(m, mode)[ID].status is Status.PROVED
    written = model(g(["x", "w"], ["y"], [op("Add", ("x", "x"), ("w",)), op("Neg", ("w",), ("y",))], {"w": 1.0}))
    v = smt(written, mode)[ID]
    assert [(f["kind"], f["tensor"]) for f in v.witness.data["violations"]] == [("assigns a graph input", "w")]  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_writing_a_tensor_twice_is_not_this_rule(mode: str) -> None:
    m = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",), "r"), op("Neg", ("x",), ("y",), "n")]))
    assert smt(m, mode)[ID].status is Status.PROVED


@pytest.mark.parametrize("mode", MODES)
def test_a_proposed_pair_that_is_no_conflict_is_rejected(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The untrusted pairing is checked: a seed paired with a write of another tensor is refused (UNKNOWN)."""
    from sonnx.smt import run_smt
    from sonnx.smt.encodings import graph_c1_sources as enc

    m = model(g(["x"], ["y"], [op("Relu", ("x",), ("x",), "r"), op("Neg", ("x",), ("y",), "n")]))

    def lying(facts: Any) -> Any:
        f = facts[0]
        x, y = f.tid["x"], f.tid["y"]
        return [("assigns a graph input", f, x, [f"(sd 0 {x})", f"(wr 1 0 {y})"])]

    monkeypatch.setattr(enc, "conflicts", lying)
    run = run_smt(m, mode=mode)
    v = next(v for v in run.verdicts if v.rule_id == ID)
    assert v.status is Status.UNKNOWN and "rejected the conflicting definitions" in (v.reason or ""), v
    assert [(o.name, o.answer) for o in run.obligations if o.rule_id == ID] == [
        ("c1_sources.disjoint", "unsat"),
        ("c1_sources.conflicts", "sat"),
    ]


def test_large_certificates_are_checked_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of three ids, cut only where the id changes: a written input is caught wherever its ids fall."""
    from sonnx.smt import common, run_smt

    monkeypatch.setattr(common, "PART", 3)
    chain = [op("Relu", (f"t{i}",), (f"t{i + 1}",)) for i in range(6)]
    ok = run_smt(model(g(["t0"], ["t6"], chain)), mode="certificate")
    assert next(v for v in ok.verdicts if v.rule_id == ID).status is Status.PROVED
    parts = [o.name for o in ok.obligations if o.rule_id == ID]
    assert parts == [f"c1_sources.disjoint.part{k}" for k in range(len(parts))] and len(parts) >= 3, parts
    for at in range(6):  # the graph input t0 written by an extra operation inserted at each position
        ops = [*chain[:at], op("Neg", ("t3",), ("t0",), "again"), *chain[at:]]
        v = smt(model(g(["t0"], ["t6"], ops)), "certificate")[ID]
        assert v.status is Status.VIOLATED, (at, v)
    twice = [*chain, op("Neg", ("t3",), ("t5",))]  # a tensor written twice: equal ids stay in one part
    assert smt(model(g(["t0"], ["t6"], twice)), "certificate")[ID].status is Status.PROVED


@pytest.mark.parametrize("size", [1, 2, 3, 5, 1000])
def test_the_certificate_obligation_is_sat_exactly_when_no_id_is_in_both_lists(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``definitions.disjoint`` (ground comparisons over the sorted ids, no predicate) against set intersection."""
    import numpy as np

    from sonnx.smt import SolverSettings, common
    from sonnx.smt.common import drive
    from sonnx.smt.definitions import disjoint

    monkeypatch.setattr(common, "PART", size)
    rng = np.random.default_rng(size)
    for trial in range(40):
        held = rng.integers(0, 30, size=int(rng.integers(0, 6)))
        refused = rng.integers(0, 30, size=int(rng.integers(0, 12)))
        ans, obs = drive(disjoint(ID, "c1_sources", held, refused, [], "m"), SolverSettings())
        expected = "unsat" if set(held.tolist()) & set(refused.tolist()) else "sat"
        assert ans.result == expected, (trial, held.tolist(), refused.tolist(), [o.text for o in obs])
        assert all("declare-fun" not in o.text for o in obs)  # ground: no uninterpreted predicate left
