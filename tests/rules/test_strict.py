"""The strict-profile rules: operators, attributes, static shapes, sparse tensors, opset imports."""

from __future__ import annotations

from sonnx.base.verdict import Status
from sonnx.model.graph import Attribute, Function, InitialValue, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import rules_for
from sonnx.rules.base import PROFILE_SONNX, PROFILE_STRICT, CheckConfig
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


# -- each reason a rule gives, and where it looks (mutation campaign) -------------------------------------------


def test_static_shapes_name_what_is_missing() -> None:
    cases = {
        "s": (TensorType("sequence", 0, None, STATIC), "declared as sequence, not a dense tensor"),
        "e": (TensorType("tensor", 0, (1, 3)), "element type unknown"),
        "r": (TensorType("tensor", 1, None), "rank unknown"),
        "d": (TensorType("tensor", 1, (None, 3)), "shape [None, 3] is not fully static"),
        "ok": (STATIC, ""),
    }
    g = make_graph("g", list(cases), list(cases), [], {n: Tensor(n, t) for n, (t, _) in cases.items()})
    d = data(run("STRICT-SHAPES", model(g)))
    # an input also listed as an output is reported once, as the input it first is
    assert d["tensors"] == [
        {"scope": "g", "tensor": n, "role": "graph input", "problem": why} for n, (_, why) in cases.items() if why
    ]
    assert d["count"] == 4


def test_static_shapes_look_into_nested_graphs() -> None:
    branch = make_graph("t", [], ["t"], [op("Relu", ["x"], ["t"])])
    typed = {n: Tensor(n, STATIC) for n in ("c", "x", "y")}
    g = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=branch,
                                                  else_branch=branch)], typed)
    d = data(run("STRICT-SHAPES", model(g)))
    assert {(f["scope"], f["tensor"]) for f in d["tensors"]} == {("g/If:s.then_branch", "t"),
                                                                 ("g/If:s.else_branch", "t")}


def test_sparse_inside_an_optional_and_sparse_tensor_lists() -> None:
    opt = TensorType("optional", 0, None, TensorType("sequence", 0, None, TensorType("sparse_tensor", 1, (4,))))
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], {"x": Tensor("x", opt)})
    v = run("STRICT-SPARSE", model(g))
    assert data(v)["sparse"] == [{"scope": "g", "tensor": "x", "problem": "declared type holds a sparse tensor"}]
    assert v.witness is not None and v.witness.summary == "1 sparse tensor(s): x: declared type holds a sparse tensor"
    c = op("Constant", [], ["y"], name="k")._replace(attributes=(Attribute("values", "SPARSE_TENSORS", ()),))
    v = run("STRICT-SPARSE", model(make_graph("g", [], ["y"], [c])))
    assert v.witness is not None and v.witness.summary == "1 sparse tensor(s): Constant:k: SPARSE_TENSORS attribute"
    plain = TensorType("sequence", 0, None, STATIC)
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])], {"x": Tensor("x", plain)})
    assert run("STRICT-SPARSE", model(g)).status is Status.PROVED


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


def test_sparse_witness_lists_three_and_counts_all() -> None:
    sparse = InitialValue(1, (4,), True, None, lambda: None)
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"])],
                   {n: Tensor(n, None, sparse) for n in ("s1", "s2", "s3", "s4")})
    v = run("STRICT-SPARSE", model(g))
    assert v.witness is not None
    assert v.witness.summary == ("4 sparse tensor(s): s1: sparse initializer, s2: sparse initializer, "
                                 "s3: sparse initializer (and 1 more)")
    assert data(v)["count"] == 4
    branch = make_graph("t", [], ["t"], [
        op("Relu", ["x"], ["u"]),
        op("Constant", [], ["t"], name="k")._replace(attributes=(Attribute("sparse_value", "SPARSE_TENSOR", sparse),)),
    ])
    g = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="s", then_branch=branch, else_branch=branch)])
    found = data(run("STRICT-SPARSE", model(g)))["sparse"]
    assert sorted(found, key=lambda f: f["scope"]) == [
        {"scope": f"g/If:s.{b}_branch", "index": 1, "operation": "Constant:k", "attribute": "sparse_value",
         "problem": "SPARSE_TENSOR attribute"} for b in ("else", "then")
    ]
