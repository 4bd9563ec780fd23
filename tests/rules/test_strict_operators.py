"""STRICT-OPERATORS: the operators a model may use, and the default set of sonnx-strict (the working group's list,
REQ OP 000, mapped to ONNX, REQ-OP-020)."""

from __future__ import annotations

import onnx.defs
import pytest

from sonnx.base.errors import UsageError
from sonnx.base.verdict import Status
from sonnx.checking.options import CheckOptions
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.rules.strict_operators import SONNX_OPERATORS, operator_set_data
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("STRICT-OPERATORS")

ID = "STRICT-OPERATORS"

GROUP_LIST = (
    "Abs Add Cast Clip Concat Constant ConstantOfShape Conv ConvTranspose Dense Div Equal Erf Exp Expand Flatten "
    "FullyConnected Gather Gemm GlobalAveragePool GRU HardSwish Identity LeakyRelu Less Log LSTM MatMul Max MaxPool "
    "Min Mod Mul Neg Not Pad Padding Pow Range ReduceMean ReduceSum Relu Reshape Resize ScatterND Shape Sigmoid "
    "Slice Softmax SoftPlus Split Sqrt Squeeze Sub Tanh Transpose ConvTransposeDeconvolution Unsqueeze Where"
).split()
"""The table of REQ OP 000 in reqs.md (commit 29e3796), in its order, copied here independently of the data file."""


def onnx_names() -> set[str]:
    return {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""}


def test_default_set_is_the_groups_list_mapped_to_onnx() -> None:
    entries = operator_set_data()["operators"]
    assert [e["listed"] for e in entries] == GROUP_LIST
    known = onnx_names()
    for e in entries:
        assert e["onnx"] and all(o in known for o in e["onnx"]), e
        if e["listed"] not in known:
            assert e["reason"], e  # every non-ONNX name has its mapping's reason
        else:
            assert e["onnx"] == [e["listed"]] and "reason" not in e
    renamed = {e["listed"]: e["onnx"] for e in entries if e["listed"] not in known}
    assert renamed == {
        "Dense": ["Gemm", "MatMul", "Add"],
        "FullyConnected": ["Gemm", "MatMul", "Add"],
        "Padding": ["Pad"],
        "SoftPlus": ["Softplus"],
        "ConvTransposeDeconvolution": ["ConvTranspose"],
    }
    specified = {("", e["onnx"]) for e in operator_set_data()["specified"]["operators"]}
    assert specified == {("", "ArgMax"), ("", "BatchNormalization")}
    assert SONNX_OPERATORS == {("", o) for e in entries for o in e["onnx"]} | specified


def test_default_set_excludes_control_flow_and_training() -> None:
    names = {o for _, o in SONNX_OPERATORS}
    assert not names & {"If", "Loop", "Scan", "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"}
    loop = make_graph("g", ["n", "c", "x"], ["y"], [op("Loop", ["n", "c", "x"], ["y"], name="l")])
    d = data(run(ID, model(loop), CheckConfig(profile=PROFILE_STRICT)))
    assert d["operators"] == ["ai.onnx::Loop"]
    assert "default sonnx-strict set (REQ OP 000)" in run(ID, model(loop), CheckConfig(profile=PROFILE_STRICT)) \
        .witness.summary  # type: ignore[union-attr]


def test_training_operators_are_named_as_such_in_the_witness() -> None:
    g = make_graph("g", ["x", "r", "t", "g"], ["y"], [op("Adam", ["r", "t", "x", "g"], ["y"], name="opt",
                                                          domain="ai.onnx.preview.training")])
    v = run(ID, model(g, opset_imports={"": 17, "ai.onnx.preview.training": 1}), CheckConfig(profile=PROFILE_STRICT))
    assert v.status is Status.VIOLATED
    assert data(v)["training_only"] == ["ai.onnx.preview.training::Adam"]
    assert "training-only (REQ-OP-020)" in v.witness.summary  # type: ignore[union-attr]


@pytest.mark.parametrize("item", ["ai.onnx.preview.training:Adam", "SoftmaxCrossEntropyLoss"])
def test_training_operators_are_refused_in_a_configured_set(item: str) -> None:
    from sonnx.checking.options import operator_pair

    with pytest.raises(UsageError, match=r"REQ-OP-020"):
        CheckOptions(profile=PROFILE_STRICT, operators=frozenset({operator_pair(item), ("", "Relu")}))


@pytest.mark.parametrize(
    ("domain", "operator"), [("ai.onnx.preview.training", "Adam"), ("", "SoftmaxCrossEntropyLoss")]
)
def test_the_rule_refuses_training_operators_even_when_a_config_lists_them(domain: str, operator: str) -> None:
    """The options refuse such a set (above); a CheckConfig built directly, past them, still cannot allow a
    training-only operator (REQ-OP-020): the rule drops them from any set, by domain and by name."""
    g = make_graph("g", ["x"], ["y"], [op(operator, ["x"], ["y"], name="t", domain=domain)])
    cfg = CheckConfig(profile=PROFILE_STRICT, allowed_operators=frozenset({(domain, operator)}))
    v = run(ID, model(g, opset_imports={"": 17, "ai.onnx.preview.training": 1}), cfg)
    assert v.status is Status.VIOLATED
    assert data(v)["training_only"] == [f"{domain or 'ai.onnx'}::{operator}"]


def test_configured_set_still_overrides_the_default() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Softsign", ["x"], ["y"], name="s")])
    cfg = CheckConfig(profile=PROFILE_STRICT, allowed_operators=frozenset({("", "Softsign")}))
    assert run(ID, model(g), cfg).status is Status.PROVED
    assert run(ID, model(g), CheckConfig(profile=PROFILE_STRICT)).status is Status.VIOLATED
    narrow = CheckConfig(profile=PROFILE_STRICT, allowed_operators=frozenset({("", "Relu")}))
    v = run(ID, model(g), narrow)
    assert v.witness is not None
    assert v.witness.summary == "1 operation(s) use operators outside the configured set: ai.onnx::Softsign"
    two = make_graph("g", ["x"], ["y"], [op("Softsign", ["x"], ["a"]), op("Tanh", ["a"], ["y"])])
    v = run(ID, model(two), narrow)
    assert v.witness is not None
    listed = "ai.onnx::Softsign, ai.onnx::Tanh"
    assert v.witness.summary == f"2 operation(s) use operators outside the configured set: {listed}"


def test_operators_default_set() -> None:
    good = make_graph("g", ["x"], ["y"], [op("Conv", ["x", "w"], ["a"]), op("Relu", ["a"], ["y"])])
    assert run("STRICT-OPERATORS", model(good)).status is Status.PROVED
    then_g = make_graph("t", [], ["t"], [op("Softsign", ["x"], ["t"], name="odd")])
    else_g = make_graph("e", [], ["e"], [op("Relu", ["x"], ["e"])])
    bad = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)])
    d = data(run("STRICT-OPERATORS", model(bad)))
    # the default set (the group's list, REQ OP 000) has no control flow: the If is outside it too
    assert d["operators"] == ["ai.onnx::If", "ai.onnx::Softsign"]
    assert {"scope": "g/If:s.then_branch", "index": 0, "operation": "Softsign:odd"} in d["operations"]


def test_operators_configured_set() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Softsign", ["x"], ["a"]), op("Relu", ["a"], ["y"])])
    cfg = CheckConfig(profile=PROFILE_STRICT, allowed_operators=frozenset({("ai.onnx", "Softsign")}))
    d = data(run("STRICT-OPERATORS", model(g), cfg))
    assert d["operators"] == ["ai.onnx::Relu"]
    empty = CheckConfig(profile=PROFILE_STRICT, allowed_operators=frozenset())
    assert data(run("STRICT-OPERATORS", model(g), empty))["count"] == 2
