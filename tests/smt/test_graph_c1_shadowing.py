"""GRAPH-C1-SHADOWING as SMT: no nested graph redefines an enclosing name, witnesses as the direct rule's."""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_operation
from tests.common.smtkit import MODES, direct, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-C1-SHADOWING")

ID = "GRAPH-C1-SHADOWING"


@pytest.mark.parametrize("mode", MODES)
def test_shadowing_across_scopes(mode: str) -> None:
    then_g = g([], ["h"], [op("Identity", ("x",), ("h",))])
    else_g = g([], ["h2"], [op("Identity", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    ok = model(g(["x", "c"], ["y"], [if_op]))
    assert smt(ok, mode)[ID].status is Status.PROVED  # siblings may reuse names; no outer clash
    then_bad = g([], ["x2"], [op("Identity", ("x",), ("x2",))])
    if_bad = make_operation("If", ["c"], ["x2"], name="if", then_branch=then_bad, else_branch=else_g)
    bad = model(g(["x", "c"], ["x2"], [if_bad]))
    v = smt(bad, mode)[ID]
    assert v.status is Status.VIOLATED and v.witness is not None
    (shadow,) = v.witness.data["violations"]
    assert shadow["kind"] == "shadows an outer name" and shadow["tensor"] == "x2"
    assert shadow["inner"]["role"] == "operation output" and shadow["outer"]["role"] == "operation output"
    assert shadow["outer"]["scope"] == "g" != shadow["scope"]  # the enclosing graph the name is defined in
    found = direct(bad)[ID].witness
    assert found is not None and v.witness.data == found.data | {"mode": mode}


@pytest.mark.parametrize("mode", MODES)
def test_shadowing_conflicts_are_listed_by_name_as_the_direct_rule_lists_them(mode: str) -> None:
    """The witness lists a scope's shadowing conflicts by tensor name, as the direct rule does, not in
    the order the branch defines them (here ``z`` is written before ``a``)."""
    ops = [op("Identity", ("x",), ("z",)), op("Identity", ("x",), ("a",)), op("Add", ("a", "z"), ("h",))]
    else_g = g([], ["k"], [op("Neg", ("x",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=g([], ["h"], ops), else_branch=else_g)
    m = model(g(["x", "c", "z", "a"], ["y"], [if_op]))

    def shadowed(v: Any) -> list[tuple[str, str]]:
        assert v.status is Status.VIOLATED and v.witness is not None
        return [(x["scope"], x["tensor"]) for x in v.witness.data["violations"]]

    expected = [("g/If:if.then_branch", "a"), ("g/If:if.then_branch", "z")]
    assert shadowed(smt(m, mode)[ID]) == shadowed(direct(m)[ID]) == expected
    assert smt(m, mode)[ID].witness.data["violations"][0]["outer"] == {"scope": "g", "role": "graph input"}  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_an_inner_input_shadowing_an_outer_initializer(mode: str) -> None:
    body = g(["i", "w"], ["w"], [])
    loop = make_operation("Loop", ["", "c"], ["y"], name="l", body=body)
    m = model(g(["c"], ["y"], [loop], {"w": 1.0}))
    v = smt(m, mode)[ID]
    assert v.status is Status.VIOLATED and v.witness is not None
    (f,) = v.witness.data["violations"]
    assert f["inner"] == {"scope": f["scope"], "role": "graph input"}
    assert f["outer"] == {"scope": "g", "role": "initializer"}
    assert v.witness.data == direct(m)[ID].witness.data | {"mode": mode}  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_a_proposed_group_that_is_no_conflict_is_rejected(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The untrusted grouping is checked: a binding grouped with another tensor's definition is refused."""
    from sonnx.smt import run_smt
    from sonnx.smt.encodings import graph_c1_shadowing as enc

    then_g = g([], ["x"], [op("Identity", ("c",), ("x",))])
    else_g = g([], ["e"], [op("Neg", ("c",), ("e",))])
    m = model(
        g(["x", "c"], ["y"], [make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)])
    )

    def lying(facts: Any) -> Any:
        f = next(f for f in facts if f.shadows)
        (t, u), other = f.shadows[0], f.tid["c"]
        return [("shadows an outer name", f, t, [f"(bd {other} {u})", f"(bd {t} {u})"])]

    monkeypatch.setattr(enc, "conflicts", lying)
    run = run_smt(m, mode=mode)
    v = next(v for v in run.verdicts if v.rule_id == ID)
    assert v.status is Status.UNKNOWN and "rejected the conflicting definitions" in (v.reason or ""), v
    assert [(o.name, o.answer) for o in run.obligations if o.rule_id == ID] == [
        ("c1_shadowing.disjoint", "unsat"),
        ("c1_shadowing.conflicts", "sat"),
    ]


def test_large_certificates_are_checked_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of two ids: a shadowing name is caught whichever part its binding falls in."""
    from sonnx.smt import common, run_smt

    monkeypatch.setattr(common, "PART", 2)
    body = [op("Identity", ("c",), ("h0",)), *(op("Neg", (f"h{i}",), (f"h{i + 1}",)) for i in range(4))]
    else_g = g([], ["e"], [op("Neg", ("c",), ("e",))])
    ok = make_operation("If", ["c"], ["y"], name="if", then_branch=g([], ["h4"], body), else_branch=else_g)
    run = run_smt(model(g(["x", "c"], ["y"], [ok])), mode="certificate")
    assert next(v for v in run.verdicts if v.rule_id == ID).status is Status.PROVED
    assert len([o for o in run.obligations if o.rule_id == ID and ".part" in o.name]) >= 3
    for i in range(5):  # the outer input x redefined by the branch at each depth of its chain
        bad_body = [*body[:i], op("Abs", ("c",), ("x",)), *body[i:]]
        then_g = g([], ["h4"], bad_body)
        bad = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
        assert smt(model(g(["x", "c"], ["y"], [bad])), "certificate")[ID].status is Status.VIOLATED, i
