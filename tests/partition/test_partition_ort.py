"""onnxruntime's node-to-provider assignment, converted and checked (the API exists in onnxruntime 1.31.1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sonnx.loader import load_model
from sonnx.partition import check_partition
from sonnx.partition.ort import ort_assignment, partition_from_assignment
from sonnx.partition.verify import ACYCLIC, COVER
from sonnx.verdict import Status

ROOT = Path(__file__).resolve().parents[2]
CNN = str(ROOT / "examples" / "cnn_block.onnx")


def conv_bn(path: Path) -> str:
    """Conv then BatchNormalization then Relu: onnxruntime's basic level folds the BatchNormalization away."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(np.ones(4, np.float32), "scale"),
        numpy_helper.from_array(np.zeros(4, np.float32), "bias"),
        numpy_helper.from_array(np.zeros(4, np.float32), "mean"),
        numpy_helper.from_array(np.ones(4, np.float32), "var"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["b"], name="bn"),
        helper.make_node("Relu", ["b"], ["y"], name="relu"),
    ]
    vi = helper.make_tensor_value_info
    g = helper.make_graph(
        nodes, "g", [vi("x", TensorProto.FLOAT, [1, 3, 8, 8])], [vi("y", TensorProto.FLOAT, [1, 4, 8, 8])], inits
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def test_unoptimized_assignment_is_a_valid_partition() -> None:
    assignment = ort_assignment(CNN, optimization="disable")
    assert {ep for ep, _ in assignment} == {"CPUExecutionProvider"}
    model = load_model(CNN)
    part = partition_from_assignment(model, assignment)
    assert sorted(k for s in part.subgraphs for k in s.nodes) == sorted(
        next(o for o in op.output_mapping if o) for op in model.graph.operations
    )
    assert check_partition(model, part).exit_code == 0


def test_optimized_assignment_does_not_cover_the_file(tmp_path: Path) -> None:
    path = conv_bn(tmp_path / "m.onnx")
    model = load_model(path)
    report = check_partition(model, partition_from_assignment(model, ort_assignment(path, optimization="all")))
    verdicts = {v.rule_id: v for v in report.verdicts}
    assert report.exit_code == 1
    cover = verdicts[COVER]
    assert cover.status is Status.VIOLATED and cover.witness is not None
    assert "b" in cover.witness.data["uncovered_nodes"]  # the BatchNormalization, named by its output
    assert verdicts[ACYCLIC].status is Status.UNKNOWN


def test_unknown_names_are_marked_and_reported(tmp_path: Path) -> None:
    path = conv_bn(tmp_path / "m.onnx")
    model = load_model(path)
    part = partition_from_assignment(model, [("EP", ["conv", "bn"]), ("EP", ["relu", "fused_thing"])])
    assert part.subgraphs[1].nodes == ("y", "ort:fused_thing")
    cover = check_partition(model, part).verdicts[0]
    assert cover.status is Status.VIOLATED and cover.witness is not None
    assert cover.witness.data["unknown_nodes"] == [{"subgraph": "EP_1", "node": "ort:fused_thing"}]
