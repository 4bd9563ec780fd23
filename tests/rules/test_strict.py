"""The strict-profile rules: operators, attributes, static shapes, sparse tensors, opset imports."""

from __future__ import annotations

from sonnx.model.graph import Attribute, Function, InitialValue, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import rules_for
from sonnx.rules.base import PROFILE_SONNX, PROFILE_STRICT, CheckConfig
from sonnx.verdict import Status
from tests.common.rulekit import data, init, model, run, tensors

STATIC = TensorType("tensor", 1, (1, 3))


def test_strict_rules_belong_to_the_strict_profile_only() -> None:
    strict = {r.id for r in rules_for(PROFILE_STRICT)} - {r.id for r in rules_for(PROFILE_SONNX)}
    assert strict == {
        "STRICT-OPERATORS", "STRICT-ATTRIBUTES", "STRICT-SHAPES", "STRICT-SPARSE", "STRICT-OPSET", "STRICT-METADATA",
        "STRICT-BROADCAST",
    }


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
    assert v.status is Status.UNKNOWN and "com.vendor" in (v.reason or "")
    g2 = make_graph("g", ["x"], ["y"], [op("Fancy", ["x"], ["a"], domain="com.vendor"), op("LeakyRelu", ["a"], ["y"])])
    assert run("STRICT-ATTRIBUTES", model(g2)).status is Status.VIOLATED


def test_static_shapes() -> None:
    typed = {n: Tensor(n, STATIC) for n in ("x", "a", "y")}
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["a"]), op("Neg", ["a"], ["y"])], typed)
    assert run("STRICT-SHAPES", model(g)).status is Status.PROVED
    typed["a"] = Tensor("a", TensorType("tensor", 1, (1, "N")))
    del typed["y"]
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["a"]), op("Neg", ["a"], ["y"])], typed)
    d = data(run("STRICT-SHAPES", model(g)))
    assert d["tensors"] == [
        {"scope": "g", "tensor": "y", "role": "graph output", "problem": "no declared type"},
        {"scope": "g", "tensor": "a", "role": "operation output", "problem": "shape [1, 'N'] is not fully static"},
    ]


def test_sparse_tensors() -> None:
    sparse = InitialValue(1, (4,), True, None, lambda: None)
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], {"s": Tensor("s", None, sparse)})
    assert data(run("STRICT-SPARSE", model(g)))["sparse"] == [
        {"scope": "g", "tensor": "s", "problem": "sparse initializer"}
    ]
    seq = TensorType("sequence", 0, None, TensorType("sparse_tensor", 1, (4,)))
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], {"x": Tensor("x", seq)})
    assert run("STRICT-SPARSE", model(g)).status is Status.VIOLATED
    c = op("Constant", [], ["y"])._replace(attributes=(Attribute("sparse_value", "SPARSE_TENSOR", sparse),))
    (f,) = data(run("STRICT-SPARSE", model(make_graph("g", [], ["y"], [c]))))["sparse"]
    assert f["attribute"] == "sparse_value" and f["operation"] == "Constant:y"
    assert (
        run(
            "STRICT-SPARSE", model(make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], tensors(init("w"))))
        ).status
        is Status.PROVED
    )


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
