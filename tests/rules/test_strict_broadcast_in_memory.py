"""STRICT-BROADCAST on a model held by no file: never judged on the shapes of a file that no longer holds it; the
shapes onnx infers for the bytes it is written as (``CheckConfig.derived_types``) when the caller gives them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.loader.derived import ReadAgain
from sonnx.loader.writer import model_bytes
from sonnx.model.graph import Tensor, TensorType, make_graph
from sonnx.rules.base import PROFILE_STRICT, CheckConfig
from tests.common.rulekit import data, run

pytestmark = pytest.mark.rule("STRICT-BROADCAST")

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
    v = run(ID, changed, dataclasses.replace(STRICT, derived_types=ReadAgain(model_bytes)))
    assert v.status is Status.VIOLATED and data(v)["operations"][0]["operands"][1]["shape"] == [3], v


def reshape_file(tmp_path: Path) -> str:
    """y = Reshape(x, s) + b with s = [6, 1] and b of shape [6, 1]: no broadcast."""
    nodes = [helper.make_node("Reshape", ["x", "s"], ["r"]), helper.make_node("Add", ["r", "b"], ["y"])]
    s = helper.make_tensor("s", TensorProto.INT64, [2], [6, 1])
    g = helper.make_graph(nodes, "m", [vi("x", [6]), vi("b", [6, 1])], [vi("y", [6, 6])], [s])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    return path


def test_a_value_changed_after_the_file_was_read_is_judged_on_its_own_shapes(tmp_path: Path) -> None:
    # the shape value becomes [1, 6]: Add([1, 6], [6, 1]) broadcasts, though the structure is the file's
    from tests.common.rulekit import value

    read = load_model(reshape_file(tmp_path))
    in_memory = dataclasses.replace(STRICT, derived_types=ReadAgain(model_bytes))
    assert run(ID, read, in_memory).status is Status.PROVED
    gg = read.graph
    s = gg.tensors["s"]
    changed_s = Tensor("s", s.type, value([1, 6], TensorProto.INT64))
    changed = dataclasses.replace(
        read, graph=make_graph(gg.name, gg.inputs, gg.outputs, gg.operations, {**gg.tensors, "s": changed_s})
    )
    v = run(ID, changed, in_memory)
    assert v.status is Status.VIOLATED and data(v)["operations"][0]["operands"][0]["shape"] == [1, 6], v
    # a faulty writer that gives the file's value back: the bytes read back as another model, not used
    stale = model_bytes(read)
    v = run(ID, changed, dataclasses.replace(STRICT, derived_types=ReadAgain(lambda _m: stale)))
    assert v.status is Status.UNKNOWN and "does not read back as the same model" in (v.reason or ""), v
    # checked for structure only, a model in memory is not read (its values would be): not established
    v = run(ID, changed, dataclasses.replace(in_memory, read_weights=False))
    assert v.status is Status.UNKNOWN and "structure only" in (v.reason or ""), v
