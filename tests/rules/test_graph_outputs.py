"""GRAPH-OUTPUTS: a model has at least one graph output (seed 000)."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Severity, Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("GRAPH-OUTPUTS")


def test_a_model_without_outputs_is_violated() -> None:
    g = make_graph("g", ["x"], [], [op("Relu", ["x"], ["y"])])
    v = run("GRAPH-OUTPUTS", model(g))
    assert v.status is Status.VIOLATED and v.severity is Severity.ERROR
    assert data(v) == {"graph": "g", "operations": 1, "inputs": 1}
    assert run("GRAPH-OUTPUTS", model(make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])]))).status is (
        Status.PROVED
    )
