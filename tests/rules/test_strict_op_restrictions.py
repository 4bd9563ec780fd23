"""STRICT-OP-RESTRICTIONS: every row of the restriction table catches a model that breaks it, and only that.

For each operator with rows there is one operation satisfying every row
(:data:`GOOD`); for each row, a change of that operation that breaks the row
(:data:`BAD`). The parametrized test asserts the row and its tags in the
witness of the broken model and a PROVED verdict for the good one, so a row
dropped from the table, a check inverted or a tag lost fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.checking.options import CheckOptions
from sonnx.checking.pipeline import check_file
from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import strict_op_restrictions
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.rules.registry import run_rules
from sonnx.rules.strict_op_table import ROWS, Row
from tests.common.rulekit import data, model, run, value

pytestmark = pytest.mark.rule("STRICT-OP-RESTRICTIONS")
ID = "STRICT-OP-RESTRICTIONS"
INT64 = 7


def t(name: str, *shape: Any) -> Tensor:
    """A declared float tensor (a graph input when listed as one)."""
    return Tensor(name, TensorType("tensor", 1, tuple(shape)))


def w(name: str, shape: tuple[int, ...], data_type: int = 1) -> Tensor:
    """A stored value of that shape."""
    arr = np.zeros(shape, dtype=np.float32 if data_type == 1 else np.int64)
    return Tensor(name, TensorType("tensor", data_type, shape), value(arr, data_type))


def ints(name: str, *v: int) -> Tensor:
    return Tensor(name, TensorType("tensor", INT64, (len(v),)), value(np.array(v, dtype=np.int64), INT64))


Case = tuple[Operation, list[Tensor], list[str], int]
"""The operation, its tensors, which of them are graph inputs, the opset."""


def one(operator: str, ins: list[str], tensors: list[Tensor], inputs: list[str], opset: int = 17,
        **attrs: Any) -> Case:
    return op(operator, ins, ["y"], name=operator.lower(), **attrs), tensors, inputs, opset


def maxpool(x: tuple[Any, ...] = (1, 1, 6, 6), **over: Any) -> Case:
    attrs: dict[str, Any] = {"kernel_shape": [2, 2], "pads": [0, 0, 0, 0], "strides": [1, 1], "dilations": [1, 1],
                             "auto_pad": "NOTSET", "ceil_mode": 0, "storage_order": 0, **over}
    return one("MaxPool", ["x"], [t("x", *x)], ["x"], **{k: v for k, v in attrs.items() if v is not None})


def conv(x: tuple[Any, ...] = (1, 4, 6, 6), wshape: tuple[int, ...] = (4, 4, 3, 3), **over: Any) -> Case:
    attrs: dict[str, Any] = {"kernel_shape": [3, 3], "pads": [0, 0, 0, 0], "strides": [1, 1], "dilations": [1, 1],
                             "auto_pad": "NOTSET", "group": 1, **over}
    return one("Conv", ["x", "w"], [t("x", *x), w("w", wshape)], ["x"], **attrs)


def gemm(a: tuple[int, ...] = (2, 3), b: tuple[int, ...] = (3, 4), c: bool = True, **over: Any) -> Case:
    attrs = {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0, **over}
    tensors = [t("a", *a), w("b", b)] + ([w("c", (2, 4))] if c else [])
    return one("Gemm", ["a", "b", "c"] if c else ["a", "b"], tensors, ["a"], **attrs)


def matmul(a: tuple[int, ...] = (2, 3), b: tuple[int, ...] = (3, 4)) -> Case:
    return one("MatMul", ["a", "b"], [t("a", *a), w("b", b)], ["a"])


def batchnorm(**over: Any) -> Case:
    attrs = {"epsilon": 1e-5, "momentum": 0.9, "training_mode": 0, **over}
    stats = [w(n, (3,)) for n in ("s", "b", "m", "v")]
    return one("BatchNormalization", ["x", "s", "b", "m", "v"], [t("x", 1, 3, 4, 4), *stats], ["x"], **attrs)


def slice_(starts: tuple[int, ...] = (0, 1), ends: tuple[int, ...] = (2, 3), axes: tuple[int, ...] | None = (0, 1),
           steps: tuple[int, ...] | None = (1, 1)) -> Case:
    names = ["x", "s", "e", "a" if axes is not None else "", "k" if steps is not None else ""]
    while names and not names[-1]:
        names.pop()
    tensors = [t("x", 4, 6), ints("s", *starts), ints("e", *ends)]
    tensors += [ints("a", *axes)] if axes is not None else []
    tensors += [ints("k", *steps)] if steps is not None else []
    return one("Slice", names, tensors, ["x"])


def constant(with_value: bool = True) -> Case:
    a = Attribute("value", "TENSOR", value(np.ones(2, dtype=np.float32))) if with_value else \
        Attribute("value_float", "FLOAT", 1.0)
    return Operation("Constant", "", "constant", (), ("y",), (a,)), [], [], 17


GOOD: dict[str, Callable[[], Case]] = {
    "MaxPool": maxpool,
    "Conv": conv,
    "Gemm": gemm,
    "MatMul": matmul,
    "Softmax": lambda: one("Softmax", ["x"], [t("x", 2, 3)], ["x"], axis=1),
    "Concat": lambda: one("Concat", ["x", "z"], [t("x", 2, 3), t("z", 2, 3)], ["x", "z"], axis=0),
    "ArgMax": lambda: one("ArgMax", ["x"], [t("x", 2, 3)], ["x"], axis=1, keepdims=1, select_last_index=0),
    "BatchNormalization": batchnorm,
    "Constant": constant,
    "Slice": slice_,
}
BAD: dict[str, Callable[[], Case]] = {
    "maxpool-2-spatial-axes": lambda: maxpool((1, 1, 6), kernel_shape=[2], pads=[0, 0], strides=[1], dilations=[1]),
    "maxpool-auto-pad-notset": lambda: maxpool(auto_pad="VALID", pads=None),
    "maxpool-ceil-mode-0": lambda: maxpool(ceil_mode=1),
    "maxpool-storage-order-0": lambda: maxpool(storage_order=1),
    "maxpool-pads-length": lambda: maxpool(pads=[0, 0]),
    "maxpool-strides-length": lambda: maxpool(strides=[1]),
    "maxpool-dilations-length": lambda: maxpool(dilations=[1]),
    "maxpool-kernel-length": lambda: maxpool(kernel_shape=[2]),
    "maxpool-kernel-above-pads": lambda: maxpool(kernel_shape=[2, 2], pads=[0, 2, 0, 0]),
    "conv-2-spatial-axes": lambda: conv((1, 4, 6), (4, 4, 3), kernel_shape=[3], pads=[0, 0], strides=[1],
                                        dilations=[1]),
    "conv-auto-pad-notset": lambda: conv(auto_pad="SAME_UPPER"),
    "conv-group-1-or-channels": lambda: conv(wshape=(4, 2, 3, 3), group=2),
    "conv-pads-length": lambda: conv(pads=[0, 0]),
    "conv-dilations-length": lambda: conv(dilations=[1]),
    "conv-kernel-matches-w": lambda: conv(kernel_shape=[2, 2]),
    "gemm-a-rank-2": lambda: gemm(a=(1, 2, 3)),
    "gemm-b-rank-2": lambda: gemm(b=(1, 3, 4)),
    "gemm-alpha-1": lambda: gemm(alpha=2.0),
    "gemm-beta-1": lambda: gemm(beta=0.5),
    "gemm-transa-0": lambda: gemm(a=(3, 2), transA=1),
    "gemm-transb-0": lambda: gemm(b=(4, 3), transB=1),
    "gemm-c-present": lambda: gemm(c=False),
    "softmax-axis-non-negative": lambda: one("Softmax", ["x"], [t("x", 2, 3)], ["x"], axis=-1),
    "concat-axis-non-negative": lambda: one("Concat", ["x", "z"], [t("x", 2, 3), t("z", 2, 3)], ["x", "z"], axis=-1),
    "argmax-axis-non-negative": lambda: one("ArgMax", ["x"], [t("x", 2, 3)], ["x"], axis=-1, keepdims=1,
                                            select_last_index=0),
    "batchnorm-inference-mode": lambda: batchnorm(training_mode=1),
    "batchnorm-epsilon-positive": lambda: batchnorm(epsilon=0.0),
    "matmul-a-rank-2": lambda: matmul(a=(5, 2, 3)),
    "matmul-b-rank-2": lambda: matmul(b=(5, 3, 4)),
    "constant-value-set": lambda: constant(False),
    "slice-axes-given": lambda: slice_(axes=None, steps=None),
    "slice-axes-all": lambda: slice_((0,), (2,), (0,), (1,)),
    "slice-steps-given": lambda: slice_(steps=None),
    "slice-positive-steps-ascend": lambda: slice_(starts=(0, 3), ends=(2, 1)),
    "slice-negative-steps-descend": lambda: slice_(starts=(0, 1), ends=(2, 3), steps=(1, -1)),
    "slice-start-below-dimension": lambda: slice_(starts=(4, 0), ends=(4, 3)),
}


def build(case: Case) -> Model:
    operation, tensors, inputs, opset = case
    g = make_graph("g", inputs, ["y"], [operation], {x.name: x for x in tensors})
    return model(g, opset)


def offenders(v: Any) -> list[dict[str, Any]]:
    return list(data(v)["operations"]) if v.status is Status.VIOLATED else []


def test_every_row_has_a_case_and_every_operator_a_good_operation() -> None:
    assert sorted(BAD) == sorted(r.id for r in ROWS)
    assert sorted(GOOD) == sorted({r.operator for r in ROWS})


@pytest.mark.parametrize("operator", sorted(GOOD))
def test_an_operation_within_every_row_is_proved(operator: str) -> None:
    v = run(ID, build(GOOD[operator]()))
    assert v.status is Status.PROVED, (v.reason, v.witness)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_each_row_catches_its_violation(row: Row) -> None:
    v = run(ID, build(BAD[row.id]()))
    assert v.status is Status.VIOLATED
    mine = [f for f in offenders(v) if f["row"] == row.id]
    assert len(mine) == 1, offenders(v)
    (f,) = mine
    assert [g["key"] for g in f["tags"]] == list(row.tags)
    assert all(g["commit"] == "652b76b8a6611585f4aaa9c1be56699b8629b0c0" for g in f["tags"])
    assert all(g["file"].startswith("safety-related-profile/sonnx/ops/spec/informal/") for g in f["tags"])
    assert f["index"] == 0 and f["scope"] == "g"
    assert f["tags"][0]["tag"] in (v.witness.summary if v.witness else "")


def test_a_default_that_breaks_a_row_is_reported_and_a_default_that_keeps_it_is_not() -> None:
    # Softmax-13 defaults axis to -1; Softmax-11 to 1
    bare = op("Softmax", ["x"], ["y"], name="s")
    g = make_graph("g", ["x"], ["y"], [bare], {"x": t("x", 2, 3)})
    (f,) = offenders(run(ID, model(g, 13)))
    assert f["row"] == "softmax-axis-non-negative" and "defaults to -1" in f["detail"]
    assert run(ID, model(g, 11)).status is Status.PROVED
    # a MaxPool left to its default auto_pad and ceil_mode breaks no row here (STRICT-ATTRIBUTES reports it)
    mp = op("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])
    g2 = make_graph("g", ["x"], ["y"], [mp], {"x": t("x", 1, 1, 4, 4)})
    assert run(ID, model(g2)).status is Status.PROVED


def test_a_row_not_in_the_operators_version_is_not_applied() -> None:
    # training_mode appeared in BatchNormalization-14; version 9 has no such attribute to check
    operation, tensors, inputs, _ = batchnorm()
    old = operation._replace(attributes=tuple(a for a in operation.attributes if a.name != "training_mode"))
    g = make_graph("g", inputs, ["y"], [old], {x.name: x for x in tensors})
    assert run(ID, model(g, 9)).status is Status.PROVED


def test_a_shape_not_established_leaves_the_verdict_unknown() -> None:
    mp = op("MaxPool", ["h"], ["y"], kernel_shape=[2, 2], auto_pad="NOTSET", ceil_mode=0, storage_order=0)
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["h"]), mp], {"x": Tensor("x", TensorType("tensor", 1))})
    v = run(ID, model(g))
    assert v.status is Status.UNKNOWN
    assert "maxpool-2-spatial-axes: the rank of 'h' is not established" in (v.reason or "")


def test_slice_bounds_from_a_graph_input_are_unknown_and_a_default_initializer_is_not_a_constant() -> None:
    operation, tensors, inputs, opset = slice_()
    g = make_graph("g", [*inputs, "s"], ["y"], [operation], {x.name: x for x in tensors})
    v = run(ID, model(g, opset))
    assert v.status is Status.UNKNOWN and "'s' is a graph input, given at run time" in (v.reason or "")


def test_group_equal_to_channels_is_depthwise_even_when_read_from_the_weight() -> None:
    assert run(ID, build(conv((1, 4, 6, 6), (4, 1, 3, 3), group=4))).status is Status.PROVED
    # the channel count is symbolic: a stored W with one channel per group settles it
    assert run(ID, build(conv((1, "C", 6, 6), (4, 1, 3, 3), group=4))).status is Status.PROVED
    bad = run(ID, build(conv((1, "C", 6, 6), (4, 2, 3, 3), group=2)))
    assert [f["row"] for f in offenders(bad)] == ["conv-group-1-or-channels"]


def test_other_domains_and_violations_listed_with_open_rows_counted() -> None:
    custom = op("MaxPool", ["x"], ["y"], domain="com.vendor", ceil_mode=1)
    g = make_graph("g", ["x"], ["y"], [custom], {"x": t("x", 1, 1, 4, 4)})
    assert run(ID, model(g, opset_imports={"": 17, "com.vendor": 1})).status is Status.PROVED
    operation, tensors, inputs, opset = maxpool(ceil_mode=1)
    unknown_rank = op("Relu", ["x"], ["h"])
    open_mp = op("MaxPool", ["h"], ["z"], kernel_shape=[2, 2], auto_pad="NOTSET", ceil_mode=0, storage_order=0)
    g2 = make_graph("g", inputs, ["y", "z"], [operation, unknown_rank, open_mp], {x.name: x for x in tensors})
    v = run(ID, model(g2, opset))
    assert v.status is Status.VIOLATED and data(v)["undetermined_count"] >= 1


def test_a_row_naming_a_statement_the_inventory_lacks_fails() -> None:
    row = ROWS[0]._replace(tags=("maxpool/maxpool.md|real|Restrictions|R99",))
    with pytest.raises(KeyError, match="R99"):
        strict_op_restrictions.tag_refs(row)


REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("conv_fp16.torchscript.onnx", {"gemm-transb-0"}),
        ("sk_kmeans.skl2onnx.onnx", {"gemm-alpha-1", "gemm-transb-0"}),
        ("shufflenet_v2.torchscript.onnx", {"slice-axes-all", "slice-steps-given", "gemm-transb-0"}),
        ("unet_tiny.torchscript.onnx", set()),
    ],
)
def test_real_exports(name: str, rows: set[str]) -> None:
    report = check_file(str(REAL / name), CheckOptions(profile=PROFILE_STRICT, engine="direct"))
    (v,) = [v for v in report.verdicts if v.rule_id == ID]
    assert {f["row"] for f in offenders(v)} == rows
    assert v.status is (Status.VIOLATED if rows else Status.PROVED), v.reason


def test_a_broken_row_with_an_unknown_tag_makes_the_check_unknown_not_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tuple(r._replace(tags=(*r.tags, "maxpool/maxpool.md|real|Restrictions|R99")) if r.id ==
                  "maxpool-ceil-mode-0" else r for r in ROWS)
    monkeypatch.setattr(strict_op_restrictions, "ROWS", stale)
    (v,) = [v for v in run_rules(build(maxpool(ceil_mode=1)), CheckConfig(profile=PROFILE_STRICT))
            if v.rule_id == ID]
    assert v.status is Status.UNKNOWN and "R99" in (v.reason or "")
