"""GRAPH-FUNCTION-SHADOWING as SMT: local functions that shadow a standard operator."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from tests.common.smtkit import MODES, g, op, smt

pytestmark = pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")


@pytest.mark.parametrize("mode", MODES)
def test_function_shadowing(mode: str) -> None:
    from sonnx.model.graph import Model
    from tests.common.rulekit import function as fn

    base = g(["x"], ["y"], [op("Relu", ("x",), ("y",))])
    ok = Model(base, 8, {"": 17}, functions=(fn("local", "Relu"), fn("", "Gelu")))
    assert smt(ok, mode)["GRAPH-FUNCTION-SHADOWING"].status is Status.PROVED
    bad = Model(base, 8, {"": 17}, functions=(fn("", "Relu"), fn("local", "F"), fn("", "Sigmoid")))
    v = smt(bad, mode)["GRAPH-FUNCTION-SHADOWING"]
    assert v.status is Status.VIOLATED and v.witness is not None
    got = [(x["function"], x["standard_operator"], x["since_version"]) for x in v.witness.data["functions"]]
    assert got == [("Relu", "ai.onnx::Relu", 14), ("Sigmoid", "ai.onnx::Sigmoid", 13)]
