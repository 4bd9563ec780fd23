"""STRICT-SPARSE: no sparse tensor anywhere in the model, inside optionals and lists included."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Attribute, InitialValue, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, init, model, run, tensors

pytestmark = pytest.mark.rule("STRICT-SPARSE")

STATIC = TensorType("tensor", 1, (1, 3))


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
