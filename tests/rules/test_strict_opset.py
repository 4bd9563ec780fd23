"""STRICT-OPSET: every operator domain in use has an explicit opset version, in the model and in function bodies."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Function, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("STRICT-OPSET")


def test_opset_imports() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["a"]), op("Fancy", ["a"], ["y"], domain="com.vendor")])
    d = data(run("STRICT-OPSET", model(g)))
    assert d["missing"] == [
        {"domain": "com.vendor", "in": "model", "first_use": {"scope": "g", "index": 1, "operation": "Fancy:y"}}
    ]
    assert run("STRICT-OPSET", model(g, opset_imports={"ai.onnx": 17, "com.vendor": 1})).status is Status.PROVED
    assert run("STRICT-OPSET", model(g, opset_imports={"com.vendor": 1})).status is Status.VIOLATED


def test_opset_imports_of_function_bodies() -> None:
    body = make_graph("f", ["a"], ["b"], [op("Fancy", ["a"], ["b"], domain="com.vendor")])
    m = model(
        make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])]),
        functions=(Function("local", "f", body, opset_imports={"": 17}),),
    )
    (f,) = data(run("STRICT-OPSET", m))["missing"]
    assert f["domain"] == "com.vendor" and f["in"] == "function local.f"


def test_opset_of_a_function_without_imports_is_the_models() -> None:
    body = make_graph("f", ["a"], ["b"], [op("Fancy", ["a"], ["b"], domain="com.vendor")])
    fn = Function("local", "f", body, opset_imports={})
    main = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])])
    assert run("STRICT-OPSET", model(main, opset_imports={"": 17, "com.vendor": 1}, functions=(fn,))).status \
        is Status.PROVED
    v = run("STRICT-OPSET", model(main, opset_imports={"": 17}, functions=(fn,)))
    (f,) = data(v)["missing"]
    assert f == {"domain": "com.vendor", "in": "function local.f",
                 "first_use": {"scope": "f", "index": 0, "operation": "Fancy:b"}}
    assert v.witness is not None
    assert v.witness.summary == "1 domain(s) used without an opset import: com.vendor (function local.f)"


def test_opset_lists_each_missing_domain_once_sorted_with_its_first_use() -> None:
    branch = make_graph("t", [], ["t"], [op("B", ["x"], ["t"], domain="com.b", name="inner")])
    nodes = [op("B", ["x"], ["p"], domain="com.b", name="first"), op("A", ["p"], ["q"], domain="com.a"),
             op("If", ["c"], ["y"], name="s", then_branch=branch, else_branch=branch)]
    g = make_graph("g", ["c", "x"], ["y"], nodes)
    d = data(run("STRICT-OPSET", model(g, opset_imports={"": 17})))
    assert [(f["domain"], f["first_use"]["operation"]) for f in d["missing"]] == [("com.a", "A:q"),
                                                                                  ("com.b", "B:first")]
    assert d["count"] == 2
    # the default domain used without an import is named ai.onnx
    d = data(run("STRICT-OPSET", model(make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])]), opset_imports={})))
    assert [f["domain"] for f in d["missing"]] == ["ai.onnx"]


def test_opset_names_a_function_of_the_default_domain_without_a_dot_and_shows_ten_domains() -> None:
    body = make_graph("f", ["a"], ["b"], [op("Fancy", ["a"], ["b"], domain="com.vendor")])
    m = model(make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])]),
              functions=(Function("", "f", body, opset_imports={"": 17}),))
    (f,) = data(run("STRICT-OPSET", m))["missing"]
    assert f["in"] == "function f"
    ops = [op("Relu", ["x"], ["t0"])] + [op("V", [f"t{k}"], [f"t{k + 1}"], domain=f"d{k:02d}") for k in range(11)]
    v = run("STRICT-OPSET", model(make_graph("g", ["x"], ["t11"], ops)))
    shown = ", ".join(f"d{k:02d} (model)" for k in range(10))
    assert v.witness is not None and v.witness.summary == f"11 domain(s) used without an opset import: {shown}"
