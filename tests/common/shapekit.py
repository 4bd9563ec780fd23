"""Models with symbolic input dimensions for the OP-SHAPES tests, and running the rule on them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.verdict import Verdict
from sonnx.execution.executor import trial_run
from sonnx.loader.load import load_model
from sonnx.model.graph import Model
from sonnx.rules import op_shapes
from sonnx.rules.base import PROFILE_STRICT, CheckConfig, CheckContext, TrialRunner


def saved(
    tmp_path: Path,
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[tuple[str, Sequence[Any]]],
    stored: Sequence[tuple[str, np.ndarray]] = (),
    opset: int = 17,
    elem: int = TensorProto.FLOAT,
    name: str = "m.onnx",
) -> Model:
    """A one-graph model of ``nodes`` with float inputs of the given (possibly symbolic) shapes, loaded back."""
    produced = [o for n in nodes for o in n.output]
    graph = helper.make_graph(
        list(nodes),
        "g",
        [helper.make_tensor_value_info(n, elem, list(shape)) for n, shape in inputs],
        [helper.make_tensor_value_info(produced[-1], elem, None)],
        [numpy_helper.from_array(v, n) for n, v in stored],
    )
    path = tmp_path / name
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    return load_model(str(path))


def conv_net(tmp_path: Path, pads: Sequence[int] = (0, 0, 0, 0), kernel: int = 3, stride: int = 1) -> Model:
    """Conv (3 to 4 channels) -> Relu -> GlobalAveragePool -> Flatten on x of shape (N, 3, H, H)."""
    w = np.ones((4, 3, kernel, kernel), np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "W"], ["c"], pads=list(pads), strides=[stride, stride]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
    ]
    return saved(tmp_path, nodes, [("x", ["N", 3, "H", "H"])], [("W", w)])


def run_rule(
    model: Model, dims: Sequence[tuple[str, int, int]] = (), runner: TrialRunner | None = trial_run
) -> Verdict:
    """OP-SHAPES on ``model`` under the strict profile, with the executor's trial run unless told otherwise."""
    config = CheckConfig(profile=PROFILE_STRICT, trial_run=runner, dims=tuple(dims))
    return op_shapes.check(CheckContext(model, config))
