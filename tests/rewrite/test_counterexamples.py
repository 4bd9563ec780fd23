"""Regression tests: each counterexample the proofs found is real on the executor, and the pass refuses it.

For every unsound case, the naive rewrite (what the seed's precondition
alone would allow) is built by hand and run: it gives a different result
(or fails where the original runs). The pass itself refuses the original.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx import helper

from sonnx.base.errors import SonnxError
from sonnx.execution.executor import execute
from sonnx.rewrite.flatten import FlattenToReshape
from sonnx.rewrite.pad_conv import PadIntoConv
from sonnx.rewrite.pad_nop import PadRemoval
from sonnx.rewrite.pad_pool import PadIntoPool
from tests.common.rewrite_models import build, init, load, op, vi

X_NEG = {"x": -np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)}


def _run(path: Path, feeds: dict) -> dict:
    return execute(load(path), feeds)


def _pad_then_pool(tmp_path: Path, pool: str) -> tuple[Path, Path]:
    """A zero Pad of one on each spatial side feeding a 2x2 ``pool``, and the naive fusion into the pool's pads."""
    pad = helper.make_node("Pad", ["x", "p"], ["t"])
    orig = build(
        tmp_path,
        [pad, helper.make_node(pool, ["t"], ["y"], kernel_shape=[2, 2])],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        [init("p", [0, 0, 1, 1, 0, 0, 1, 1])],
        name="a.onnx",
    )
    naive = build(
        tmp_path,
        [helper.make_node(pool, ["x"], ["y"], kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        name="b.onnx",
    )
    return orig, naive


def test_maxpool_zero_fill_counterexample(tmp_path: Path) -> None:
    orig, naive = _pad_then_pool(tmp_path, "MaxPool")
    a, b = _run(orig, X_NEG)["y"], _run(naive, X_NEG)["y"]
    assert a.shape == b.shape and a[0, 0, 0, 0] == 0.0 and b[0, 0, 0, 0] == -1.0
    m = load(orig)
    assert PadIntoPool().requires(m, op(m, "MaxPool")) is not None


def test_average_pool_count_exclude_pad_counterexample(tmp_path: Path) -> None:
    orig, naive = _pad_then_pool(tmp_path, "AveragePool")
    a, b = _run(orig, X_NEG)["y"], _run(naive, X_NEG)["y"]
    assert a.shape == b.shape and a[0, 0, 0, 0] == -0.25 and b[0, 0, 0, 0] == -1.0
    # The pass fuses it, but with count_include_pad = 1 (the corrected precondition): same values.
    m = load(orig)
    assert PadIntoPool().requires(m, op(m, "AveragePool")) is None
    fused, _ = PadIntoPool().transform(m, op(m, "AveragePool"))
    assert execute(fused, X_NEG)["y"].tobytes() == a.tobytes()


def test_ceil_mode_end_padding_counterexample(tmp_path: Path) -> None:
    attrs: dict[str, Any] = {"kernel_shape": [1, 1], "strides": [2, 2], "ceil_mode": 1, "count_include_pad": 1}
    pad = helper.make_node("Pad", ["x", "p"], ["t"])
    orig = build(
        tmp_path,
        [pad, helper.make_node("AveragePool", ["t"], ["y"], **attrs)],
        [vi("x", [1, 1, 1, 1])],
        [vi("y", None)],
        [init("p", [0, 0, 0, 0, 0, 0, 2, 2])],
        name="a.onnx",
    )
    naive = build(
        tmp_path,
        [helper.make_node("AveragePool", ["x"], ["y"], pads=[0, 0, 2, 2], **attrs)],
        [vi("x", [1, 1, 1, 1])],
        [vi("y", None)],
        name="b.onnx",
    )
    feeds = {"x": np.ones((1, 1, 1, 1), np.float32)}
    assert _run(orig, feeds)["y"].shape == (1, 1, 2, 2)
    assert _run(naive, feeds)["y"].shape == (1, 1, 1, 1)
    m = load(orig)
    assert "ceil_mode" in (PadIntoPool().requires(m, op(m, "AveragePool")) or "")


def test_flatten_zero_axis_counterexample(tmp_path: Path) -> None:
    orig = build(
        tmp_path,
        [helper.make_node("Flatten", ["x"], ["y"], axis=2)],
        [vi("x", [2, 0, 3])],
        [vi("y", None)],
        opset=13,
        name="a.onnx",
    )
    naive = build(
        tmp_path,
        [helper.make_node("Reshape", ["x", "s"], ["y"])],
        [vi("x", [2, 0, 3])],
        [vi("y", None)],
        [init("s", [0, 3])],
        opset=13,
        name="b.onnx",
    )
    feeds = {"x": np.zeros((2, 0, 3), np.float32)}
    assert _run(orig, feeds)["y"].shape == (0, 3)
    with pytest.raises(SonnxError, match="does not hold"):
        _run(naive, feeds)
    m = load(orig)
    assert FlattenToReshape().requires(m, op(m, "Flatten")) is not None


def test_pad_shift_is_not_a_nop_counterexample(tmp_path: Path) -> None:
    orig = build(
        tmp_path, [helper.make_node("Pad", ["x", "p"], ["y"])], [vi("x", [2])], [vi("y", None)], [init("p", [-1, 1])]
    )
    out = _run(orig, {"x": np.array([5.0, 7.0], np.float32)})["y"]
    assert out.tolist() == [7.0, 0.0]
    m = load(orig)
    assert PadRemoval().requires(m, op(m, "Pad")) is not None


def test_conv_same_upper_counterexample(tmp_path: Path) -> None:
    w = init("w", np.ones((1, 1, 3, 3)), np.float32)
    conv: dict[str, Any] = {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"}
    orig = build(
        tmp_path,
        [helper.make_node("Pad", ["x", "p"], ["t"]), helper.make_node("Conv", ["t", "w"], ["y"], **conv)],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        [init("p", [0, 0, 1, 1, 0, 0, 1, 1]), w],
        name="a.onnx",
    )
    naive = build(
        tmp_path,
        [helper.make_node("Conv", ["x", "w"], ["y"], **conv)],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        [w],
        name="b.onnx",
    )
    assert _run(orig, X_NEG)["y"].shape == (1, 1, 6, 6) and _run(naive, X_NEG)["y"].shape == (1, 1, 4, 4)
    m = load(orig)
    assert PadIntoConv().requires(m, op(m, "Conv")) is not None


def test_negative_pad_counterexample(tmp_path: Path) -> None:
    w = init("w", np.ones((1, 1, 1, 1)), np.float32)
    orig = build(
        tmp_path,
        [
            helper.make_node("Pad", ["x", "p"], ["t"]),
            helper.make_node("Conv", ["t", "w"], ["y"], kernel_shape=[1, 1], pads=[1, 0, 0, 0]),
        ],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        [init("p", [0, 0, -1, 0, 0, 0, 0, 0]), w],
        name="a.onnx",
    )
    naive = build(
        tmp_path,
        [helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[1, 1], pads=[0, 0, 0, 0])],
        [vi("x", [1, 1, 4, 4])],
        [vi("y", None)],
        [w],
        name="b.onnx",
    )
    a, b = _run(orig, X_NEG)["y"], _run(naive, X_NEG)["y"]
    assert a.shape == b.shape and not np.array_equal(a, b)
    m = load(orig)
    assert "negative" in (PadIntoConv().requires(m, op(m, "Conv")) or "")
