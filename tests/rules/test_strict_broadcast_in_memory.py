"""STRICT-BROADCAST on a model held by no file: never judged on the shapes of a file that no longer holds it; the
shapes onnx infers for the bytes it is written as (``CheckConfig.serialized``) when the caller gives them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from sonnx.loader import load_model
from sonnx.model.graph import Tensor, TensorType, make_graph
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from sonnx.verdict import Status
from sonnx.writer import model_bytes
from tests.common.rulekit import data, run

ID = "STRICT-BROADCAST"
STRICT = CheckConfig(profile=PROFILE_STRICT)


def vi(name: str, shape: list[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_a_model_changed_after_it_was_read_is_judged_on_its_own_shapes(tmp_path: Path) -> None:
    # the file adds two [2, 3] tensors; the model checked declares its second input [3]: its Add broadcasts
    g = helper.make_graph([helper.make_node("Add", ["x", "z"], ["y"])], "m", [vi("x", [2, 3]), vi("z", [2, 3])],
                          [vi("y", [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "m.onnx"))
    read = load_model(tmp_path / "m.onnx")
    assert run(ID, read, STRICT).status is Status.PROVED
    gg = read.graph
    narrowed = {**gg.tensors, "z": Tensor("z", TensorType("tensor", 1, (3,)))}
    changed = dataclasses.replace(read, graph=make_graph(gg.name, gg.inputs, gg.outputs, gg.operations, narrowed))
    v = run(ID, changed, STRICT)  # never the file's shapes
    assert v.status is Status.UNKNOWN and "changed after it was read" in (v.reason or ""), v
    v = run(ID, changed, dataclasses.replace(STRICT, serialized=model_bytes))
    assert v.status is Status.VIOLATED and data(v)["operations"][0]["operands"][1]["shape"] == [3], v
