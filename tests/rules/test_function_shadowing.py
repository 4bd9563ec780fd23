"""GRAPH-FUNCTION-SHADOWING: a model-local function may not take a standard operator's domain and name."""

from __future__ import annotations

import pytest

from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.verdict import Severity, Status
from tests.common.rulekit import data, function, run, with_functions

ID = "GRAPH-FUNCTION-SHADOWING"


def test_functions_of_their_own_domain_pass() -> None:
    v = run(ID, with_functions(function("local", "Relu"), function("", "MyBlock")))
    assert v.status is Status.PROVED and v.severity is Severity.ERROR


def test_function_named_like_a_standard_operator() -> None:
    v = run(ID, with_functions(function("local", "F"), function("", "Relu")))
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
    assert v.witness is not None and v.witness.summary.endswith("function Relu shadows ai.onnx::Relu-14 (opset 17)")


def test_the_opset_the_model_imports_decides() -> None:
    # ONNX's Gelu arrives in opset 20: at opset 17 a local Gelu is the only Gelu there is
    assert run(ID, with_functions(function("", "Gelu"))).status is Status.PROVED
    (f,) = data(run(ID, with_functions(function("", "Gelu"), opsets={"": 20})))["functions"]
    assert f["since_version"] == 20 and f["opset"] == 20
    # the schema in force at the imported version is named (Relu-6 at opset 12)
    (f,) = data(run(ID, with_functions(function("", "Relu"), opsets={"": 12})))["functions"]
    assert f["since_version"] == 6


def test_a_domain_the_model_does_not_import_counts_at_any_version() -> None:
    v = run(ID, with_functions(function("ai.onnx.ml", "Scaler")))
    (f,) = data(v)["functions"]
    assert f["standard_operator"] == "ai.onnx.ml::Scaler" and f["opset"] is None
    assert v.witness is not None and v.witness.summary.endswith("ai.onnx.ml::Scaler-1 (no opset imported)")


def test_a_domain_the_model_imports_is_read_at_its_version() -> None:
    m = with_functions(function("ai.onnx.ml", "Scaler"), opsets={"": 17, "ai.onnx.ml": 3})
    (f,) = data(run(ID, m))["functions"]
    assert (f["standard_operator"], f["since_version"], f["opset"]) == ("ai.onnx.ml::Scaler", 1, 3)


@pytest.mark.parametrize("profile", ["sonnx", PROFILE_STRICT])
def test_an_error_in_both_profiles(profile: str) -> None:
    v = run(ID, with_functions(function("", "Relu")), CheckConfig(profile=profile))
    assert v.status is Status.VIOLATED and v.severity is Severity.ERROR and v.fails
