"""GRAPH-FUNCTION-SHADOWING: a model-local function may not take a standard operator's domain and name."""

from __future__ import annotations

import pytest

from sonnx.model.graph import Function, Model, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.verdict import Severity, Status
from tests.common.rulekit import data, model, run

ID = "GRAPH-FUNCTION-SHADOWING"


def fn(domain: str, name: str) -> Function:
    return Function(domain, name, make_graph(name, ["a"], ["b"], [op("Abs", ["a"], ["b"])]))


def with_functions(*functions: Function, opsets: dict[str, int] | None = None) -> Model:
    g = make_graph("main", ["x"], ["y"], [op("Identity", ["x"], ["y"])])
    return model(g, opset_imports=opsets or {"": 17}, functions=functions)


def test_functions_of_their_own_domain_pass() -> None:
    v = run(ID, with_functions(fn("local", "Relu"), fn("", "MyBlock")))
    assert v.status is Status.PROVED and v.severity is Severity.WARNING


def test_function_named_like_a_standard_operator() -> None:
    v = run(ID, with_functions(fn("local", "F"), fn("", "Relu")))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["functions"]
    assert f == {
        "function": "Relu",
        "domain": "ai.onnx",
        "name": "Relu",
        "overload": "",
        "standard_operator": "ai.onnx::Relu",
        "since_version": 14,
        "opset": 17,
    }
    assert "shadows ai.onnx::Relu-14" in (v.witness.summary if v.witness else "")


def test_the_opset_the_model_imports_decides() -> None:
    # ONNX's Gelu arrives in opset 20: at opset 17 a local Gelu is the only Gelu there is
    assert run(ID, with_functions(fn("", "Gelu"))).status is Status.PROVED
    (f,) = data(run(ID, with_functions(fn("", "Gelu"), opsets={"": 20})))["functions"]
    assert f["since_version"] == 20 and f["opset"] == 20
    # the schema in force at the imported version is named (Relu-6 at opset 12)
    (f,) = data(run(ID, with_functions(fn("", "Relu"), opsets={"": 12})))["functions"]
    assert f["since_version"] == 6


def test_a_domain_the_model_does_not_import_counts_at_any_version() -> None:
    (f,) = data(run(ID, with_functions(fn("ai.onnx.ml", "Scaler"))))["functions"]
    assert f["standard_operator"] == "ai.onnx.ml::Scaler" and f["opset"] is None


@pytest.mark.parametrize("profile", ["sonnx", "sonnx-strict"])
def test_severity_follows_the_profile(profile: str) -> None:
    v = run(ID, with_functions(fn("", "Relu")), CheckConfig(profile=profile))
    assert v.severity is (Severity.ERROR if profile == PROFILE_STRICT else Severity.WARNING)
