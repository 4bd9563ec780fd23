"""GRAPH-R2 as SMT: the determinism table evaluated by the solver on each operation's facts."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Attribute, Operation
from tests.common.smtkit import const, g, model, op, smt


@pytest.mark.rule("GRAPH-R2")
def test_dropout_training_mode_false_constant_is_deterministic() -> None:
    ops = [op("Constant", (), ("t",), "c"), op("Dropout", ("x", "", "t"), ("y",), "drop")]
    ops[0] = Operation("Constant", "", "c", (), ("t",), (Attribute("value", "TENSOR", const(False)),))
    s = smt(model(g(["x"], ["y"], ops)))
    assert s["GRAPH-R2"].status is Status.PROVED
    ops[0] = Operation("Constant", "", "c", (), ("t",), (Attribute("value", "TENSOR", const(True)),))
    assert smt(model(g(["x"], ["y"], ops)))["GRAPH-R2"].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_unknown_operator_makes_r2_and_determinism_unknown() -> None:
    m = model(g(["x"], ["y"], [Operation("Mystery", "com.acme", "m", ("x",), ("y",))]))
    s = smt(m)
    assert s["GRAPH-R2"].status is Status.UNKNOWN
    assert s["GRAPH-DETERMINISM"].status is Status.UNKNOWN
