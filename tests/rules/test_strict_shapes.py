"""STRICT-SHAPES: every tensor has a declared, fully static type, in nested graphs too."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("STRICT-SHAPES")

STATIC = TensorType("tensor", 1, (1, 3))


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
