"""GRAPH-FUNCTION-SHADOWING: a model-local function may not take a standard operator's domain and name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import sonnx
from sonnx.base.verdict import Severity, Status, Verdict
from sonnx.loader import load_model
from sonnx.model.graph import Model
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from tests.common import shadowing as sh
from tests.common.rulekit import data, function, run, with_functions

ID = "GRAPH-FUNCTION-SHADOWING"


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_functions_of_their_own_domain_pass() -> None:
    v = run(ID, with_functions(function("local", "Relu"), function("", "MyBlock")))
    assert v.status is Status.PROVED and v.severity is Severity.ERROR


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
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


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_the_opset_the_model_imports_decides() -> None:
    # ONNX's Gelu arrives in opset 20: at opset 17 a local Gelu is the only Gelu there is
    assert run(ID, with_functions(function("", "Gelu"))).status is Status.PROVED
    (f,) = data(run(ID, with_functions(function("", "Gelu"), opsets={"": 20})))["functions"]
    assert f["since_version"] == 20 and f["opset"] == 20
    # the schema in force at the imported version is named (Relu-6 at opset 12)
    (f,) = data(run(ID, with_functions(function("", "Relu"), opsets={"": 12})))["functions"]
    assert f["since_version"] == 6


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_a_domain_the_model_does_not_import_counts_at_any_version() -> None:
    v = run(ID, with_functions(function("ai.onnx.ml", "Scaler")))
    (f,) = data(v)["functions"]
    assert f["standard_operator"] == "ai.onnx.ml::Scaler" and f["opset"] is None
    assert v.witness is not None and v.witness.summary.endswith("ai.onnx.ml::Scaler-1 (no opset imported)")


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
def test_a_domain_the_model_imports_is_read_at_its_version() -> None:
    m = with_functions(function("ai.onnx.ml", "Scaler"), opsets={"": 17, "ai.onnx.ml": 3})
    (f,) = data(run(ID, m))["functions"]
    assert (f["standard_operator"], f["since_version"], f["opset"]) == ("ai.onnx.ml::Scaler", 1, 3)


@pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")
@pytest.mark.parametrize("profile", ["sonnx", PROFILE_STRICT])
def test_an_error_in_both_profiles(profile: str) -> None:
    v = run(ID, with_functions(function("", "Relu")), CheckConfig(profile=profile))
    assert v.status is Status.VIOLATED and v.severity is Severity.ERROR and v.fails


# -- both meanings of a call: GRAPH-R2 and GRAPH-DETERMINISM at the calls of a shadowing function --------------


def _load(tmp_path: Path, m: onnx.ModelProto) -> Model:
    return load_model(sh.save(tmp_path / "m.onnx", m))


def _r2(tmp_path: Path, m: onnx.ModelProto) -> tuple[Verdict, Verdict]:
    loaded = _load(tmp_path, m)
    return run("GRAPH-R2", loaded), run("GRAPH-DETERMINISM", loaded)


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_the_random_generator_of_the_report_is_nondeterministic_at_its_call(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.random_identity())
    assert r2.status is Status.VIOLATED and det.status is Status.VIOLATED
    (f,) = data(r2)["nondeterministic"]
    assert (f["scope"], f["function"], f["standard_operator"]) == ("main", "RandomNormalLike",
                                                                    "ai.onnx::RandomNormalLike-1")
    assert f["operation"].startswith("RandomNormalLike:call (a call of function RandomNormalLike")
    assert r2.witness is not None and "ai.onnx::RandomNormalLike-1: draws pseudo-random values" in r2.witness.summary
    assert data(det)["output"] == "Y" and "RandomNormalLike:call" in data(det)["source_reason"]


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_the_seed_attribute_at_the_call_does_not_make_it_deterministic(tmp_path: Path) -> None:
    # the table's entry for the generators is unconditional: runtimes draw different values for one seed
    assert _r2(tmp_path, sh.random_identity(seed=1.0))[0].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_relu_of_the_report_is_deterministic_in_both_meanings(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.relu_neg())
    assert r2.status is Status.PROVED and det.status is Status.PROVED
    assert run(ID, _load(tmp_path, sh.relu_neg())).status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_a_call_inside_another_function_counts(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.nested_random())
    assert r2.status is Status.VIOLATED and det.status is Status.VIOLATED
    (f,) = data(r2)["nondeterministic"]
    assert f["operation"].startswith("RandomNormalLike:call/Block/r (a call of function RandomNormalLike")
    path = data(det)["path"]
    assert [s["tensor"] for s in path] == ["call/Block/r", "Y"]  # from the inner call's output to the graph output


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_a_call_in_a_nested_graph_is_named_in_its_scope(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.random_in_branch())
    (f,) = data(r2)["nondeterministic"]
    assert f["scope"] == "main/If:choose.then_branch" and f["operation"].startswith("RandomNormalLike:draw")
    assert det.status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_a_dead_call_breaks_r2_not_determinism(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.dead_random())
    assert r2.status is Status.VIOLATED and det.status is Status.PROVED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
@pytest.mark.parametrize(("training", "expected"), [
    (None, Status.PROVED), (False, Status.PROVED), (True, Status.VIOLATED), ("input", Status.VIOLATED),
])
def test_a_conditional_entry_is_evaluated_on_the_call(tmp_path: Path, training: str | bool | None,
                                                      expected: Status) -> None:
    # Dropout-13's training_mode is read at the call (the body, an Identity, never reads it)
    r2, det = _r2(tmp_path, sh.dropout(training))
    assert r2.status is expected and det.status is expected


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
@pytest.mark.parametrize(("sorted_", "expected"), [(0, Status.VIOLATED), (1, Status.PROVED)])
def test_the_call_attributes_decide(tmp_path: Path, sorted_: int, expected: Status) -> None:
    assert _r2(tmp_path, sh.topk(sorted_))[0].status is expected


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
@pytest.mark.parametrize(("sorted_", "expected"), [(0, Status.VIOLATED), (1, Status.PROVED)])
def test_an_attribute_reference_is_resolved_from_the_outer_call(tmp_path: Path, sorted_: int,
                                                                 expected: Status) -> None:
    # local::Block gives its attribute s as the sorted of its TopK call; the outer call sets s
    assert _r2(tmp_path, sh.topk_through_block(sorted_))[0].status is expected


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_an_unknown_class_as_the_operator_is_unknown(tmp_path: Path) -> None:
    r2, det = _r2(tmp_path, sh.mod(None))
    assert r2.status is Status.UNKNOWN and det.status is Status.UNKNOWN
    assert r2.reason is not None and "as ai.onnx::Mod-13: divisor 'D'" in r2.reason
    assert _r2(tmp_path, sh.mod([1, 0, 2, 3]))[0].status is Status.VIOLATED
    assert _r2(tmp_path, sh.mod([1, 2, 2, 3]))[0].status is Status.PROVED


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM", "GRAPH-FUNCTION-SHADOWING")
def test_graphs_given_at_the_call_leave_the_class_unknown(tmp_path: Path) -> None:
    # the runtimes run the standard If, so its then-branch (a random generator) that the inlined body never holds
    r2, det = _r2(tmp_path, sh.if_with_random_branch())
    assert r2.status is Status.UNKNOWN and det.status is Status.UNKNOWN
    assert r2.reason is not None and "as ai.onnx::If-16: the graphs the call gives as attributes" in r2.reason


@pytest.mark.rule("GRAPH-R2", "GRAPH-FUNCTION-SHADOWING")
def test_control_a_custom_domain_function_has_one_meaning(tmp_path: Path) -> None:
    for m in (sh.custom_random(), sh.custom_relu()):
        loaded = _load(tmp_path, m)
        assert run(ID, loaded).status is Status.PROVED and loaded.inlined_calls == ()
        assert run("GRAPH-R2", loaded).status is Status.PROVED


@pytest.mark.rule("FORMAT-ONNX", "GRAPH-R2", "GRAPH-FUNCTION-SHADOWING")
def test_control_an_operator_of_a_later_opset_is_not_shadowed(tmp_path: Path) -> None:
    # ONNX's Gelu arrives in opset 20: no runtime runs this opset-17 model (onnx.checker, onnxruntime and the
    # reference evaluator refuse it, spec), and FORMAT-ONNX is the rule that says so
    path = sh.save(tmp_path / "gelu.onnx", sh.later_gelu())
    report = sonnx.check(path, engine="direct")
    got = {v.rule_id: v.status for v in report.verdicts}
    assert got[ID] is Status.PROVED and got["GRAPH-R2"] is Status.PROVED
    assert got["FORMAT-ONNX"] is Status.VIOLATED and report.exit_code == 1
    assert sonnx.run(path, {"X": np.ones(4, np.float32)})["Y"].tolist() == [-1.0] * 4  # not refused as shadowing
