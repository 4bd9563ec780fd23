"""The peer behaviour GRAPH-ATTRIBUTES rests on, asked of the installed onnxruntime and onnx (spec, GRAPH-ATTRIBUTES).

The rule takes a main-graph input's declared rank as a fact of every run because onnxruntime refuses a fed value
of another rank; the reference evaluator does not check, which the spec states as the rule's assumption. If the
installed onnxruntime ever accepted such a value, the rule's reading would no longer hold: this test says so.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as oh
from onnx.reference import ReferenceEvaluator

from tests.common.peers import onnxruntime

pytestmark = pytest.mark.rule("GRAPH-ATTRIBUTES")


def _relu(shape: list[int | str]) -> onnx.ModelProto:
    graph = oh.make_graph([oh.make_node("Relu", ["x"], ["y"])], "g",
                          [oh.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)], ir_version=8)


def _runs_in_onnxruntime(proto: onnx.ModelProto, x: np.ndarray) -> bool:
    ort = onnxruntime()
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    try:
        session.run(None, {"x": x})
    except Exception:
        return False
    return True


def test_onnxruntime_refuses_a_fed_value_of_another_rank_than_declared() -> None:
    x3 = np.zeros((2, 3, 4), np.float32)
    for shape in ([2, 3], ["a", "b"]):  # fixed or symbolic dimensions: the rank is enforced either way
        proto = _relu(shape)
        assert not _runs_in_onnxruntime(proto, x3), f"onnxruntime accepts rank 3 for declared {shape}"
        assert _runs_in_onnxruntime(proto, np.zeros((2, 3), np.float32))


def test_the_reference_evaluator_does_not_check_the_declared_rank() -> None:
    # why the spec states the rule's verdict for the reference evaluator on inputs of the declared types only
    (y,) = ReferenceEvaluator(_relu([2, 3])).run(None, {"x": np.zeros((2, 3, 4), np.float32)})
    assert np.asarray(y).shape == (2, 3, 4)
