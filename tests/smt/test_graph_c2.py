"""GRAPH-C2 as SMT: every graph input is read, loop-body inputs imposed by the operator excepted."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_operation
from tests.common.smtkit import MODES, direct, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-C2")


@pytest.mark.parametrize("mode", MODES)
def test_input_usage(mode: str) -> None:
    ok = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",))]))
    assert smt(ok, mode)["GRAPH-C2"].status is Status.PROVED
    bad = model(g(["x", "spare"], ["y", "spare"], [op("Relu", ("x",), ("y",))]))
    v = smt(bad, mode)["GRAPH-C2"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["unused"] == [{"scope": "g", "input": "spare", "position": 1}]
    two = model(g(["b", "x", "a"], ["y"], [op("Relu", ("x",), ("y",))]))
    v = smt(two, mode)["GRAPH-C2"]
    assert v.witness is not None and [(u["input"], u["position"]) for u in v.witness.data["unused"]] == [
        ("b", 0),
        ("a", 2),
    ]
    # an input named twice and read by nothing is listed once, at its first position (as the direct rule does)
    twice = model(g(["x", "w", "w"], ["y"], [op("Relu", ("x",), ("y",))]))
    for v in (smt(twice, mode)["GRAPH-C2"], direct(twice)["GRAPH-C2"]):
        assert v.witness is not None and v.witness.data["unused"] == [{"scope": "g", "input": "w", "position": 1}]


@pytest.mark.parametrize("mode", MODES)
def test_loop_body_imposed_inputs_are_exempt(mode: str) -> None:
    body = g(["i", "cond", "v"], ["cond", "w"], [op("Relu", ("v",), ("w",))])
    loop = make_operation("Loop", ["n", "", "x"], ["y"], name="loop", body=body)
    m = model(g(["n", "x"], ["y"], [loop]))
    assert smt(m, mode)["GRAPH-C2"].status is Status.PROVED
