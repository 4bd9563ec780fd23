"""GRAPH-C1-SOURCES as SMT: no operation writes a graph input or an initialized tensor."""

from __future__ import annotations

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
