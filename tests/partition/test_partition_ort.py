"""onnxruntime's node-to-provider assignment, converted and checked.

The assignment API appeared in onnxruntime 1.31; what each optimisation level
folds is onnxruntime's choice. The tests ask the installed onnxruntime
(``tests.common.peers``) and assert sonnx's consequence for what it answers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.partition import check_partition
from sonnx.partition.ort import OrtError, ort_assignment, partition_from_assignment
from sonnx.partition.verify import ACYCLIC, COVER
from tests.common import peers
from tests.common.peers import ort_has_assignment_info

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


API = "get_provider_graph_assignment_info"


def _missing(_self: object) -> None:
    raise AttributeError(API)


def test_a_missing_assignment_api_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peers.onnxruntime().InferenceSession, API, property(_missing), raising=False)
    with pytest.raises(OrtError, match=API):
        ort_assignment(CNN)


def _assignment(path: str, optimization: str) -> list[tuple[str, list[str]]] | None:
    """The installed onnxruntime's assignment; None (after checking sonnx says why) when it has no such API."""
    if not ort_has_assignment_info():
        with pytest.raises(OrtError, match=API):
            ort_assignment(path, optimization=optimization)
        return None
    return [(ep, list(names)) for ep, names in ort_assignment(path, optimization=optimization)]


def test_unoptimized_assignment_is_a_valid_partition() -> None:
    assignment = _assignment(CNN, "disable")
    if assignment is None:
        return
    assert {ep for ep, _ in assignment} == {"CPUExecutionProvider"}
    model = load_model(CNN)
    part = partition_from_assignment(model, assignment)
    assert sorted(k for s in part.subgraphs for k in s.nodes) == sorted(
        next(o for o in op.output_mapping if o) for op in model.graph.operations
    )
    assert check_partition(model, part).exit_code == 0


def test_an_optimized_assignment_covers_the_file_only_if_nothing_was_folded(tmp_path: Path) -> None:
    path = conv_bn(tmp_path / "m.onnx")
    model = load_model(path)
    assignment = _assignment(path, "all")
    if assignment is None:
        return
    assigned = {n for _, names in assignment for n in names}
    folded = sorted({"conv", "bn", "relu"} - assigned)  # onnxruntime has folded the BatchNormalization into Conv
    report = check_partition(model, partition_from_assignment(model, assignment))
    verdicts = {v.rule_id: v for v in report.verdicts}
    cover = verdicts[COVER]
    if not folded and assigned == {"conv", "bn", "relu"}:
        assert report.exit_code == 0 and cover.status is Status.PROVED
        return
    assert report.exit_code == 1
    assert cover.status is Status.VIOLATED and cover.witness is not None
    outputs = {"conv": "c", "bn": "b", "relu": "y"}
    assert {outputs[n] for n in folded} <= set(cover.witness.data["uncovered_nodes"])
    assert verdicts[ACYCLIC].status is Status.UNKNOWN


def test_unknown_names_are_marked_and_reported(tmp_path: Path) -> None:
    path = conv_bn(tmp_path / "m.onnx")
    model = load_model(path)
    part = partition_from_assignment(model, [("EP", ["conv", "bn"]), ("EP", ["relu", "fused_thing"])])
    assert part.subgraphs[1].nodes == ("y", "ort:fused_thing")
    cover = check_partition(model, part).verdicts[0]
    assert cover.status is Status.VIOLATED and cover.witness is not None
    assert cover.witness.data["unknown_nodes"] == [{"subgraph": "EP_1", "node": "ort:fused_thing"}]
