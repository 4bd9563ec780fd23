"""One test group per pass: the precondition holds (the pass applies, validation is bit-exact) or fails (refused)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import helper

from sonnx.rewrite import rewrite_model, select
from sonnx.rewrite.constant import ConstantToInitializer
from sonnx.rewrite.dropout import DropoutRemoval
from sonnx.rewrite.flatten import FlattenToReshape
from sonnx.rewrite.identity import IdentityRemoval
from sonnx.rewrite.pad_conv import PadIntoConv
from sonnx.rewrite.pad_nop import PadRemoval
from sonnx.rewrite.pad_pool import PadIntoPool
from sonnx.rewrite.shape import ShapeToConstant
from tests.common.rewrite_models import attr, build, init, load, op, operators, value, vi


def _applied(result: object, name: str) -> list[str]:
    return [a.operation for a in result.applications if a.pass_name == name]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------ dropout


def test_dropout_removed_in_inference(tmp_path: Path) -> None:
    p = build(
        tmp_path,
        [
            helper.make_node("Relu", ["x"], ["a"]),
            helper.make_node("Dropout", ["a"], ["b"]),
            helper.make_node("Relu", ["b"], ["y"]),
        ],
        [vi("x", [2, 3])],
        [vi("y", [2, 3])],
        opset=13,
    )
    r = rewrite_model(load(p), select(["dropout"]))
    assert r.ok and operators(r.model) == ["Relu", "Relu"]
    assert r.model.graph.operations[1].input_mapping == ("a",)


def test_dropout_feeding_a_graph_output_renames_the_producer(tmp_path: Path) -> None:
    p = build(
        tmp_path,
        [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Dropout", ["a"], ["y"])],
        [vi("x", [4])],
        [vi("y", [4])],
        opset=13,
    )
    r = rewrite_model(load(p), select(["dropout"]))
    assert r.ok and operators(r.model) == ["Relu"]
    assert r.model.graph.operations[0].output_mapping == ("y",) and r.model.graph.outputs == ("y",)


@pytest.mark.parametrize(
    ("opset", "nodes", "inits", "reason"),
    [
        (6, [helper.make_node("Dropout", ["a"], ["b"], is_test=0)], [], "is_test"),
        (
            13,
            [helper.make_node("Dropout", ["a", "", "t"], ["b"])],
            [init("t", True, np.bool_)],
            "training_mode is true",
        ),
        (13, [helper.make_node("Dropout", ["a", "", "t"], ["b"])], [], "not a constant"),
        (13, [helper.make_node("Dropout", ["a"], ["b", "m"]), helper.make_node("Not", ["m"], ["nm"])], [], "mask"),
    ],
)
def test_dropout_precondition_refuses(tmp_path: Path, opset: int, nodes: list, inits: list, reason: str) -> None:
    graph_inputs = [vi("a", [3])]
    if reason == "not a constant":
        graph_inputs.append(vi("t", [], 9))
    outs = [vi("b", [3])] + ([vi("nm", [3], 9)] if reason == "mask" else [])
    p = build(tmp_path, [helper.make_node("Relu", ["a"], ["r"])][:0] + nodes, graph_inputs, outs, inits, opset=opset)
    m = load(p)
    why = DropoutRemoval().requires(m, op(m, "Dropout"))
    assert why is not None and reason in why


# ------------------------------------------------------------------------------------------------ flatten


@pytest.mark.parametrize(
    ("shape", "axis", "want"),
    [((2, 3, 4), 1, [2, 12]), ((2, 3, 4), -1, [6, 4]), ((2, 3, 4), 0, [1, 24]), ((2, 3, 4), 3, [24, 1])],
)
def test_flatten_becomes_reshape(tmp_path: Path, shape: tuple, axis: int, want: list) -> None:
    p = build(tmp_path, [helper.make_node("Flatten", ["x"], ["y"], axis=axis)], [vi("x", shape)], [vi("y", want)])
    r = rewrite_model(load(p), select(["flatten"]))
    assert r.ok and operators(r.model) == ["Reshape"]
    shape_name = r.model.graph.operations[0].input_mapping[1]
    assert value(r.model, shape_name) == want


def test_flatten_zero_sized_axis_needs_allowzero(tmp_path: Path) -> None:
    # The counterexample of proofs/rewrite_flatten.py: [2, 0, 3], axis 2.
    nodes = [helper.make_node("Flatten", ["x"], ["y"], axis=2)]
    p13 = build(tmp_path, nodes, [vi("x", [2, 0, 3])], [vi("y", [0, 3])], opset=13, name="a.onnx")
    m13 = load(p13)
    why = FlattenToReshape().requires(m13, op(m13, "Flatten"))
    assert why is not None and "allowzero" in why
    p14 = build(tmp_path, nodes, [vi("x", [2, 0, 3])], [vi("y", [0, 3])], opset=14, name="b.onnx")
    r = rewrite_model(load(p14), select(["flatten"]))
    assert r.ok and attr(r.model.graph.operations[0], "allowzero") == 1


def test_flatten_without_static_shape_is_refused(tmp_path: Path) -> None:
    p = build(tmp_path, [helper.make_node("Flatten", ["x"], ["y"])], [vi("x", None)], [vi("y", None)])
    m = load(p)
    assert "static" in (FlattenToReshape().requires(m, op(m, "Flatten")) or "")


# ----------------------------------------------------------------------------------------------- constant


def test_constant_becomes_initializer(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", 1, [3], [1.0, -2.0, 0.5])),
        helper.make_node("Constant", [], ["k"], value_ints=[3]),
        helper.make_node("Add", ["x", "c"], ["y"]),
        helper.make_node("Reshape", ["y", "k"], ["z"]),
    ]
    p = build(tmp_path, nodes, [vi("x", [3])], [vi("z", [3])])
    r = rewrite_model(load(p), select(["constant"]))
    assert r.ok and operators(r.model) == ["Add", "Reshape"]
    assert value(r.model, "c") == [1.0, -2.0, 0.5]
    assert value(r.model, "k") == [3]


def test_constant_before_ir4_is_refused(tmp_path: Path) -> None:
    nodes = [helper.make_node("Constant", [], ["c"], value_float=1.0), helper.make_node("Add", ["x", "c"], ["y"])]
    p = build(tmp_path, nodes, [vi("x", [])], [vi("y", [])], opset=13, ir=3)
    m = load(p)
    assert "IR version" in (ConstantToInitializer().requires(m, op(m, "Constant")) or "")


# ----------------------------------------------------------------------------------------------- identity


def test_identity_chain_removed(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Identity", ["a"], ["b"]),
        helper.make_node("Identity", ["b"], ["c"]),
        helper.make_node("Neg", ["c"], ["y"]),
    ]
    p = build(tmp_path, nodes, [vi("x", [5])], [vi("y", [5])])
    r = rewrite_model(load(p), select(["identity"]))
    assert r.ok and operators(r.model) == ["Relu", "Neg"]


def test_identity_from_graph_input_to_output_is_refused(tmp_path: Path) -> None:
    p = build(tmp_path, [helper.make_node("Identity", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])])
    m = load(p)
    assert "graph input" in (IdentityRemoval().requires(m, op(m, "Identity")) or "")


# -------------------------------------------------------------------------------------------------- shape


def test_shape_with_start_end_becomes_constant(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Shape", ["a"], ["s"], start=-3),
        helper.make_node("Reshape", ["a", "s"], ["y"]),
        helper.make_node("Shape", ["a"], ["s2"], start=1, end=-1),
    ]
    p = build(
        tmp_path,
        nodes,
        [vi("x", [1, 2, 3, 4])],
        [vi("y", None), vi("s2", None, 7)],
        opset=15,
        value_info=[vi("a", [1, 2, 3, 4])],
    )
    r = rewrite_model(load(p), select(["shape"]))
    assert r.ok, r.validation
    assert operators(r.model) == ["Relu", "Reshape"]
    assert value(r.model, "s") == [2, 3, 4]
    assert value(r.model, "s2") == [2, 3]


def test_shape_of_undeclared_shape_is_refused(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Shape", ["a"], ["y"])]
    p = build(tmp_path, nodes, [vi("x", [2, 2])], [vi("y", [2], 7)])
    m = load(p)
    assert "not declared static" in (ShapeToConstant().requires(m, op(m, "Shape")) or "")


def test_shape_as_only_reader_of_a_graph_input_is_refused(tmp_path: Path) -> None:
    p = build(tmp_path, [helper.make_node("Shape", ["x"], ["y"])], [vi("x", [2, 2])], [vi("y", [2], 7)])
    r = rewrite_model(load(p), select(["shape"]))
    assert not r.applications and "left unread" in r.refusals[0].reason


# ------------------------------------------------------------------------------------------------ pad-nop


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_zero_pad_removed_in_any_mode(tmp_path: Path, mode: str) -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Pad", ["a", "p"], ["b"], mode=mode),
        helper.make_node("Neg", ["b"], ["y"]),
    ]
    p = build(tmp_path, nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], [init("p", [0, 0, 0, 0])])
    r = rewrite_model(load(p), select(["pad-nop"]))
    assert r.ok and operators(r.model) == ["Relu", "Neg"] and "p" not in r.model.graph.tensors


def test_size_keeping_shift_is_not_a_nop(tmp_path: Path) -> None:
    # The counterexample of proofs/rewrite_pad_nop.py: begin -1, end +1 keeps the size and shifts.
    nodes = [helper.make_node("Pad", ["x", "p"], ["y"])]
    p = build(tmp_path, nodes, [vi("x", [2])], [vi("y", [2])], [init("p", [-1, 1])])
    m = load(p)
    assert "not all 0" in (PadRemoval().requires(m, op(m, "Pad")) or "")


# ------------------------------------------------------------------------------------- pad into pool/conv


def _pad_then(
    tmp: Path,
    consumer: Any,
    pads: list,
    fill: object = None,
    mode: str = "constant",
    x_shape: tuple = (1, 2, 5, 5),
    opset: int = 17,
    extra_inits: tuple = (),
    name: str = "m.onnx",
    extra_outputs: tuple = (),
) -> Path:
    inits = [init("p", pads)]
    pad_inputs = ["x", "p"]
    if fill is not None:
        inits.append(init("v", fill, np.float32))
        pad_inputs.append("v")
    nodes = [helper.make_node("Pad", pad_inputs, ["t"], mode=mode), consumer]
    return build(
        tmp,
        nodes,
        [vi("x", list(x_shape))],
        [vi("y", None), *extra_outputs],
        [*inits, *extra_inits],
        opset=opset,
        name=name,
    )


def test_pad_fused_into_average_pool_with_count_include_pad(tmp_path: Path) -> None:
    pool = helper.make_node("AveragePool", ["t"], ["y"], kernel_shape=[3, 3], pads=[1, 0, 0, 1], count_include_pad=1)
    r = rewrite_model(load(_pad_then(tmp_path, pool, [0, 0, 1, 2, 0, 0, 0, 1])), select(["pad-pool"]))
    assert r.ok and operators(r.model) == ["AveragePool"]
    assert attr(r.model.graph.operations[0], "pads") == (2, 2, 0, 2)


def test_pad_fused_into_unpadded_average_pool_sets_count_include_pad(tmp_path: Path) -> None:
    pool = helper.make_node("AveragePool", ["t"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    r = rewrite_model(load(_pad_then(tmp_path, pool, [0, 0, 1, 1, 0, 0, 1, 1])), select(["pad-pool"]))
    assert r.ok and attr(r.model.graph.operations[0], "count_include_pad") == 1


def test_average_pool_excluding_own_padding_is_refused(tmp_path: Path) -> None:
    pool = helper.make_node("AveragePool", ["t"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    m = load(_pad_then(tmp_path, pool, [0, 0, 1, 1, 0, 0, 1, 1]))
    assert "count_include_pad = 0" in (PadIntoPool().requires(m, op(m, "AveragePool")) or "")


def test_max_pool_with_lowest_fill_is_fused(tmp_path: Path) -> None:
    pool = helper.make_node("MaxPool", ["t"], ["y"], kernel_shape=[3, 3], dilations=[2, 1])
    r = rewrite_model(load(_pad_then(tmp_path, pool, [0, 0, 2, 1, 0, 0, 2, 1], fill=-np.inf)), select(["pad-pool"]))
    assert r.ok and operators(r.model) == ["MaxPool"]


def test_max_pool_with_zero_fill_is_refused(tmp_path: Path) -> None:
    pool = helper.make_node("MaxPool", ["t"], ["y"], kernel_shape=[2, 2])
    m = load(_pad_then(tmp_path, pool, [0, 0, 1, 1, 0, 0, 1, 1]))
    assert "lowest value" in (PadIntoPool().requires(m, op(m, "MaxPool")) or "")


def test_max_pool_with_used_indices_is_refused(tmp_path: Path) -> None:
    pool = helper.make_node("MaxPool", ["t"], ["y", "idx"], kernel_shape=[2, 2])
    m = load(_pad_then(tmp_path, pool, [0, 0, 1, 1, 0, 0, 1, 1], fill=-np.inf, extra_outputs=(vi("idx", None, 7),)))
    assert "Indices" in (PadIntoPool().requires(m, op(m, "MaxPool")) or "")


def test_max_pool_window_over_padding_only_is_refused(tmp_path: Path) -> None:
    pool = helper.make_node("MaxPool", ["t"], ["y"], kernel_shape=[1, 1])
    m = load(_pad_then(tmp_path, pool, [0, 0, 1, 0, 0, 0, 0, 0], fill=-np.inf))
    assert "padding only" in (PadIntoPool().requires(m, op(m, "MaxPool")) or "")


def test_ceil_mode_with_end_padding_is_refused(tmp_path: Path) -> None:
    pool = helper.make_node(
        "AveragePool", ["t"], ["y"], kernel_shape=[1, 1], strides=[2, 2], ceil_mode=1, count_include_pad=1
    )
    m = load(_pad_then(tmp_path, pool, [0, 0, 0, 0, 0, 0, 2, 2], x_shape=(1, 1, 1, 1)))
    assert "ceil_mode" in (PadIntoPool().requires(m, op(m, "AveragePool")) or "")


@pytest.mark.parametrize(
    ("pads", "mode", "fill", "reason"),
    [
        ([0, 1, 1, 1, 0, 0, 1, 1], "constant", None, "batch or channel"),
        ([0, 0, -1, 0, 0, 0, 1, 1], "constant", None, "negative"),
        ([0, 0, 1, 1, 0, 0, 1, 1], "reflect", None, "mode"),
        ([0, 0, 1, 1, 0, 0, 1, 1], "constant", -0.0, "+0"),
        ([0, 0, 1, 1, 0, 0, 1, 1], "constant", 1.0, "+0"),
    ],
)
def test_pad_into_conv_refusals(tmp_path: Path, pads: list, mode: str, fill: object, reason: str) -> None:
    conv = helper.make_node("Conv", ["t", "w"], ["y"], kernel_shape=[3, 3])
    w = init("w", np.ones((1, 2, 3, 3)), np.float32)
    m = load(_pad_then(tmp_path, conv, pads, fill=fill, mode=mode, extra_inits=(w,)))
    why = PadIntoConv().requires(m, op(m, "Conv"))
    assert why is not None and reason in why, why


def test_pad_into_conv_same_upper_is_refused(tmp_path: Path) -> None:
    conv = helper.make_node("Conv", ["t", "w"], ["y"], kernel_shape=[3, 3], auto_pad="SAME_UPPER")
    w = init("w", np.ones((1, 2, 3, 3)), np.float32)
    m = load(_pad_then(tmp_path, conv, [0, 0, 1, 1, 0, 0, 1, 1], extra_inits=(w,)))
    assert "auto_pad SAME_UPPER" in (PadIntoConv().requires(m, op(m, "Conv")) or "")


def test_pad18_with_axes_fused_into_dilated_conv(tmp_path: Path) -> None:
    conv = helper.make_node(
        "Conv", ["t", "w"], ["y"], kernel_shape=[2, 2], dilations=[2, 1], strides=[1, 2], pads=[0, 1, 1, 0]
    )
    nodes = [helper.make_node("Pad", ["x", "p", "", "ax"], ["t"]), conv]
    inits = [
        init("p", [2, 1, 0, 3]),
        init("ax", [-2, 3]),
        init("w", np.arange(8).reshape(1, 2, 2, 2) - 3.0, np.float32),
    ]
    p = build(tmp_path, nodes, [vi("x", [1, 2, 4, 5])], [vi("y", None)], inits, opset=18)
    r = rewrite_model(load(p), select(["pad-conv"]))
    assert r.ok and operators(r.model) == ["Conv"]
    assert attr(r.model.graph.operations[0], "pads") == (2, 2, 1, 3)
