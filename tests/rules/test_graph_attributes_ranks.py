"""The ranks GRAPH-ATTRIBUTES decides axes on: facts of every run, derived through the operator texts."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules.base import CheckContext
from sonnx.rules.ranks import ranks
from tests.common.rulekit import init, model, value

pytestmark = pytest.mark.rule("GRAPH-ATTRIBUTES")


def const(name: str, v: Any) -> Operation:
    arr = np.asarray(v)
    dtype = 7 if arr.dtype.kind in "iu" else 1
    return op("Constant", [], [name])._replace(attributes=(Attribute("value", "TENSOR", value(arr, dtype)),))


def rank_in(ops: list[Operation], name: str, shapes: dict[str, tuple[Any, ...] | None], **kw: Any) -> int | None:
    ts = {n: Tensor(n, TensorType("tensor", 1, s)) for n, s in shapes.items()}
    ts.update(kw.get("tensors", {}))
    m: Model = model(make_graph("g", list(shapes), [name], ops, ts), kw.get("opset", 17))
    return ranks(CheckContext(m)).of(0, name)


X3 = {"x": (2, 3, 4)}


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        ([op("Relu", ["x"], ["y"])], 3),
        ([op("Gemm", ["x", "x"], ["y"])], 2),
        ([op("Flatten", ["x"], ["y"])], 2),
        ([op("Shape", ["x"], ["y"])], 1),
        ([op("Add", ["x", "b"], ["y"])], None),  # b is not defined: no rank
        ([op("ReduceMean", ["x"], ["y"], keepdims=0)], None),  # the axes reduced are not read here
        ([op("ReduceMean", ["x"], ["y"])], 3),
        ([op("ArgMax", ["x"], ["y"], keepdims=0)], 2),
        ([op("MatMul", ["x", "x"], ["y"])], 3),
        ([op("Gather", ["x", "i"], ["y"])], 3 + 2 - 1),
        ([op("Unsqueeze", ["x"], ["y"], axes=[0, 1])], 5),
        ([const("s", [6, 4]), op("Reshape", ["x", "s"], ["y"])], 2),
        ([op("Shape", ["x"], ["s"]), op("Reshape", ["x", "s"], ["y"])], 3),
        ([op("Shape", ["x"], ["s"], start=1), op("Reshape", ["x", "s"], ["y"])], 2),
        ([op("Shape", ["x"], ["s"]), const("a", [0]), const("b", [2]),
          op("Slice", ["s", "a", "b"], ["t"]), const("c", [-1]), op("Concat", ["t", "c"], ["u"], axis=0),
          op("Reshape", ["x", "u"], ["y"])], 3),
        ([const("k", [2]), const("d", [3]), op("Mod", ["k", "d"], ["m"]), const("one", [1]),
          op("Add", ["m", "one"], ["a"]), op("Shape", ["x"], ["s"]), const("e", [9]),
          op("Slice", ["s", "a", "e"], ["t"]), op("Reshape", ["x", "t"], ["y"])], 0),  # Slice [3:9] of 3 values
        ([const("s", [2, 2]), op("ConstantOfShape", ["s"], ["z"]), op("Shape", ["z"], ["q"]),
          op("Expand", ["x", "q"], ["y"])], 3),
        ([const("j", [[0, 1]]), op("GatherND", ["x", "j"], ["y"])], 3 + 2 - 2 - 1),
        ([op("Neg", ["y"], ["z"]), op("Neg", ["z"], ["y"])], None),  # a cycle leaves its ranks open
    ],
)
def test_derived_ranks(ops: list[Operation], expected: int | None) -> None:
    assert rank_in(ops, "y", {**X3, "i": (2, 2)}) == expected


def test_only_main_graph_inputs_and_constants_are_facts() -> None:
    assert rank_in([op("Relu", ["x"], ["y"])], "y", {"x": None}) is None
    # a declared intermediate type is no fact
    ts = {"a": Tensor("a", TensorType("tensor", 1, (2, 2)))}
    assert rank_in([op("NonZero", ["x"], ["a"]), op("Relu", ["a"], ["y"])], "y", X3, tensors=ts) is None
    # an initializer that is no graph input is one
    g = make_graph("g", [], ["y"], [op("Relu", ["w"], ["y"])], {"w": init("w", np.zeros((1, 2, 3)))})
    assert ranks(CheckContext(model(g))).of(0, "y") == 3


def test_values_are_not_read_from_unloaded_weights() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Reshape", ["x", "s"], ["y"])],
                   {"x": Tensor("x", TensorType("tensor", 1, (2, 3))), "s": init("s", np.asarray([6]), 7)})
    loaded = model(g)
    assert ranks(CheckContext(loaded)).of(0, "y") == 1  # the shape's length comes from its dims, not its values
    # a Slice's bounds are values: without the weights they are not read
    ops = [op("Shape", ["x"], ["s"]), op("Slice", ["s", "a", "b"], ["t"]), op("Reshape", ["x", "t"], ["y"])]
    ts = {"x": Tensor("x", TensorType("tensor", 1, (2, 3))), "a": init("a", np.asarray([0]), 7),
          "b": init("b", np.asarray([1]), 7)}
    m = model(make_graph("g", ["x"], ["y"], ops, ts))
    assert ranks(CheckContext(m)).of(0, "y") == 1
    assert ranks(CheckContext(dataclasses.replace(m, weights_loaded=False))).of(0, "y") is None
