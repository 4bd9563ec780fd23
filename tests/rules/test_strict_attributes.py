"""STRICT-ATTRIBUTES: no attribute is left to its default value; an operator without a schema is reported too."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("STRICT-ATTRIBUTES")


def test_attributes_left_to_defaults() -> None:
    full = op("Conv", ["x", "w"], ["y"], auto_pad="NOTSET", group=1)
    assert run("STRICT-ATTRIBUTES", model(make_graph("g", ["x", "w"], ["y"], [full]))).status is Status.PROVED
    partial = op("Conv", ["x", "w"], ["y"], group=1)
    (f,) = data(run("STRICT-ATTRIBUTES", model(make_graph("g", ["x", "w"], ["y"], [partial]))))["operations"]
    assert f["missing"] == ["auto_pad"]
    # the schema follows the model's opset: LeakyRelu has a default alpha in every version
    lr = make_graph("g", ["x"], ["y"], [op("LeakyRelu", ["x"], ["y"])])
    assert data(run("STRICT-ATTRIBUTES", model(lr, 6)))["operations"][0]["missing"] == ["alpha"]


def test_attributes_unknown_schema() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Fancy", ["x"], ["y"], domain="com.vendor")])
    v = run("STRICT-ATTRIBUTES", model(g))
    assert v.status is Status.UNKNOWN and v.reason == (
        "no operator schema for some operations: com.vendor::Fancy: the model imports no opset version for "
        "domain 'com.vendor' (1 operation(s))"
    )
    fancy = [op("Fancy", ["x"], ["a"], domain="com.vendor"), op("Fancy", ["a"], ["y"], domain="com.vendor")]
    two = make_graph("g", ["x"], ["y"], fancy)
    assert "(2 operation(s))" in (run("STRICT-ATTRIBUTES", model(two)).reason or "")
    g2 = make_graph("g", ["x"], ["y"], [op("Fancy", ["x"], ["a"], domain="com.vendor"), op("LeakyRelu", ["a"], ["y"])])
    v2 = run("STRICT-ATTRIBUTES", model(g2))
    assert v2.status is Status.VIOLATED and data(v2)["unknown_count"] == 1
