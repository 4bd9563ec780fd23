"""Fields and element types newer than the model's IR version (spec/graph.rst, reading A14, and FORMAT-ONNX).

Each case is a model one IR version below the one that introduced the field
it uses: a field with a meaning is refused by the loader (exit 2, one line
naming the field and both IR versions); the same model at the introducing IR
version loads. An annotation field is ignored and FORMAT-ONNX is VIOLATED.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import UnsupportedModelError
from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.loader.irfields import ANNOTATIONS, ELEMENT_TYPES, MEANING, annotations_clean, stated_ir_version
from sonnx.rules import format_onnx
from sonnx.rules.base import CheckContext
from tests.common.cli import check

LOCAL = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]


def vi(name: str, elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, [2])


def wrap(nodes: list[onnx.NodeProto], ir: int, functions: tuple[onnx.FunctionProto, ...] = (),
         opsets: list[onnx.OperatorSetIdProto] | None = None, inputs: list[onnx.ValueInfoProto] | None = None,
         outputs: list[onnx.ValueInfoProto] | None = None) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs or [vi("x")], outputs or [vi("y")])
    m = helper.make_model(g, opset_imports=opsets or LOCAL, functions=list(functions))
    m.ir_version = ir
    return m


def neg_function(overload: str = "") -> onnx.FunctionProto:
    f = helper.make_function("local", "F", ["a"], ["b"], [helper.make_node("Neg", ["a"], ["b"])], LOCAL[:1])
    f.overload = overload
    return f


def call(overload: str = "") -> onnx.NodeProto:
    n = helper.make_node("F", ["x"], ["y"], domain="local")
    n.overload = overload
    return n


def functions(ir: int) -> onnx.ModelProto:
    return wrap([call()], ir, (neg_function(),))


def attribute_proto(ir: int) -> onnx.ModelProto:
    body = helper.make_node("LeakyRelu", ["a"], ["b"])
    ref = onnx.AttributeProto(name="alpha", ref_attr_name="al", type=onnx.AttributeProto.FLOAT)
    body.attribute.append(ref)
    f = helper.make_function("local", "F", ["a"], ["b"], [body], LOCAL[:1])
    f.attribute_proto.append(helper.make_attribute("al", 0.5))
    return wrap([call()], ir, (f,))


def function_overload(ir: int) -> onnx.ModelProto:
    return wrap([call("neg")], ir, (neg_function("neg"),))


def node_overload(ir: int) -> onnx.ModelProto:
    return wrap([call("neg")], ir, (neg_function(),))


def function_value_info(ir: int) -> onnx.ModelProto:
    f = neg_function()
    f.value_info.append(vi("b"))
    return wrap([call()], ir, (f,))


def sparse_initializer(ir: int) -> onnx.ModelProto:
    values = numpy_helper.from_array(np.array([5.0], np.float32), "w")
    sparse = helper.make_sparse_tensor(values, numpy_helper.from_array(np.array([1], np.int64), "wi"), [2])
    m = wrap([helper.make_node("Add", ["x", "w"], ["y"])], ir, opsets=LOCAL[:1])
    m.graph.sparse_initializer.append(sparse)
    return m


def opset_import(ir: int) -> onnx.ModelProto:
    return wrap([helper.make_node("Neg", ["x"], ["y"])], ir, opsets=[helper.make_opsetid("", 13)])


def node_domain(ir: int) -> onnx.ModelProto:
    m = wrap([helper.make_node("Neg", ["x"], ["y"], domain="ai.onnx")], ir)
    del m.opset_import[:]  # no opset_import before IR 3: the node's domain is the field under test
    return m


def optional_type(ir: int) -> onnx.ModelProto:
    opt = helper.make_value_info("x", helper.make_optional_type_proto(helper.make_tensor_type_proto(1, [2])))
    node = helper.make_node("OptionalHasElement", ["x"], ["y"])
    return wrap([node], ir, inputs=[opt], outputs=[helper.make_tensor_value_info("y", TensorProto.BOOL, [])])


MEANING_CASES: dict[tuple[str, str], tuple[Callable[[int], onnx.ModelProto], int]] = {
    ("ModelProto", "functions"): (functions, 8),
    ("FunctionProto", "attribute_proto"): (attribute_proto, 9),
    ("FunctionProto", "overload"): (function_overload, 10),
    ("NodeProto", "overload"): (node_overload, 10),
    ("FunctionProto", "value_info"): (function_value_info, 10),
    ("GraphProto", "sparse_initializer"): (sparse_initializer, 6),
    ("ModelProto", "opset_import"): (opset_import, 3),
    ("NodeProto", "domain"): (node_domain, 3),
    ("TypeProto", "optional_type"): (optional_type, 8),
}


def save(m: onnx.ModelProto, path: Path) -> str:
    onnx.save(m, path)
    return str(path)


def test_every_field_with_a_meaning_has_a_case() -> None:
    assert set(MEANING_CASES) | {("TypeProto", "sparse_tensor_type")} == set(MEANING)
    assert {k: since for k, (_, since) in MEANING_CASES.items()} == {k: MEANING[k] for k in MEANING_CASES}


@pytest.mark.parametrize("key", sorted(MEANING_CASES), ids=".".join)
def test_a_field_newer_than_the_ir_version_is_refused_and_loads_at_its_own(
    key: tuple[str, str], tmp_path: Path
) -> None:
    build, since = MEANING_CASES[key]
    old = save(build(since - 1), tmp_path / "old.onnx")
    with pytest.raises(UnsupportedModelError) as info:
        load_model(old)
    text = info.value.one_line()
    assert f"{key[0]}.{key[1]}" in text and f"IR version {since} introduced" in text, text
    assert f"declares IR version {since - 1}" in text, text
    if key != ("NodeProto", "domain"):  # at IR 3 the model would need an opset_import as well
        load_model(save(build(since), tmp_path / "new.onnx"))


@pytest.mark.parametrize("elem", sorted(ELEMENT_TYPES), ids=lambda e: TensorProto.DataType.Name(e))
@pytest.mark.parametrize("where", ["declared", "initializer"])
def test_an_element_type_newer_than_the_ir_version_is_refused(elem: int, where: str, tmp_path: Path) -> None:
    since = ELEMENT_TYPES[elem]
    if where == "declared":
        m = wrap([helper.make_node("Identity", ["x"], ["y"])], since - 1, inputs=[vi("x", elem)],
                 outputs=[vi("y", elem)], opsets=LOCAL[:1])
    else:
        m = wrap([helper.make_node("Identity", ["x"], ["y"])], since - 1, opsets=LOCAL[:1])
        m.graph.initializer.append(helper.make_tensor("unused", elem, [0], []))
    with pytest.raises(UnsupportedModelError, match=f"{TensorProto.DataType.Name(elem)}, which IR version {since}"):
        load_model(save(m, tmp_path / "old.onnx"))
    m.ir_version = since
    load_model(save(m, tmp_path / "new.onnx"))


def test_the_command_line_refuses_in_one_line(tmp_path: Path) -> None:
    path = save(functions(7), tmp_path / "m.onnx")
    code, out, err = check(path)
    assert code == 2 and "Traceback" not in out + err
    assert err.count("\n") == 1 and "ModelProto.functions" in err and "IR version 8" in err, err


def _annotated(key: tuple[str, str], ir: int) -> onnx.ModelProto:
    if key[0] == "FunctionProto":
        f = neg_function()
        f.metadata_props.add(key="k", value="v")
        return wrap([call()], ir, (f,))
    m = wrap([helper.make_node("Neg", ["x"], ["y"])], ir, opsets=[helper.make_opsetid("", 13)])
    if key == ("GraphProto", "metadata_props"):
        m.graph.metadata_props.add(key="k", value="v")
    elif key == ("GraphProto", "quantization_annotation"):
        qa = m.graph.quantization_annotation.add(tensor_name="x")
        qa.quant_parameter_tensor_names.add(key="SCALE_TENSOR", value="s")
    elif key == ("NodeProto", "metadata_props"):
        m.graph.node[0].metadata_props.add(key="k", value="v")
    elif key == ("NodeProto", "device_configurations"):
        m.graph.node[0].device_configurations.add(configuration_id="c")
    elif key == ("ModelProto", "configuration"):
        m.configuration.add(name="c", num_devices=1)
    elif key == ("ModelProto", "training_info"):
        m.training_info.add()
    return m


@pytest.mark.parametrize("key", sorted(ANNOTATIONS), ids=".".join)
def test_an_annotation_field_newer_than_the_ir_version_is_a_format_violation(
    key: tuple[str, str], tmp_path: Path
) -> None:
    since = max(ANNOTATIONS[key], 8 if key[0] == "FunctionProto" else 3)
    old = load_model(save(_annotated(key, since - 1 if key[0] != "FunctionProto" else 9), tmp_path / "old.onnx"))
    v = format_onnx.check(CheckContext(old))
    assert v.status is Status.VIOLATED, (v.reason, v.witness)
    assert v.witness is not None and f"{key[0]}.{key[1]} (IR {ANNOTATIONS[key]})" in v.witness.summary
    new = load_model(save(_annotated(key, 11), tmp_path / "new.onnx"))
    assert format_onnx.check(CheckContext(new)).status is Status.PROVED


def _with_branch(ir: int, tag_inner_node: bool) -> onnx.ModelProto:
    inner = helper.make_node("Neg", ["x"], ["z"])
    if tag_inner_node:
        inner.metadata_props.add(key="k", value="v")
    branch = helper.make_graph([inner], "branch", [], [vi("z")])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    return wrap([node], ir, opsets=[helper.make_opsetid("", 13)], inputs=[cond, vi("x")])


@pytest.mark.parametrize("tagged", [True, False])
def test_annotations_in_nested_graphs_are_found_and_a_clean_model_is_proved(tagged: bool, tmp_path: Path) -> None:
    model = load_model(save(_with_branch(9, tagged), tmp_path / "m.onnx"))
    v = format_onnx.check(CheckContext(model))
    if tagged:
        assert v.status is Status.VIOLATED and v.witness is not None
        summary = v.witness.summary
        assert "attribute 'then_branch'" in summary and "NodeProto.metadata_props (IR 10)" in summary
    else:
        assert v.status is Status.PROVED, v.reason


def test_the_annotation_view_decides_a_model_without_nested_graphs() -> None:
    clean = wrap([helper.make_node("Neg", ["x"], ["y"], name="n")], 9, opsets=[helper.make_opsetid("", 13)])
    assert annotations_clean(clean.SerializeToString())
    for key in sorted(ANNOTATIONS):
        assert not annotations_clean(_annotated(key, 4).SerializeToString()), key


@pytest.mark.parametrize("ir", [3, 8, 9, 10, 11])
def test_the_stated_ir_version_is_read_from_the_top_level_alone(ir: int) -> None:
    m = _with_branch(ir, True)
    m.producer_name = "p"
    data = m.SerializeToString()
    assert stated_ir_version(data) == ir
    repeated = data + b"\x08" + bytes([ir + 1])  # protobuf keeps the last value of a repeated scalar field
    assert stated_ir_version(repeated) == onnx.load_model_from_string(repeated).ir_version == ir + 1


def test_bytes_that_do_not_read_as_a_message_state_no_ir_version() -> None:
    data = wrap([helper.make_node("Neg", ["x"], ["y"])], 9).SerializeToString()
    assert stated_ir_version(data[:-1]) is None  # the last field runs past the end
    assert stated_ir_version(b"") is None and stated_ir_version(b"\x3a\x00") is None  # no ir_version field
    assert stated_ir_version(b"\x08") is None and stated_ir_version(b"\x0f") is None  # cut varint; wire type 7
    assert stated_ir_version(b"\x08" + b"\xff" * 10 + b"\x01") is None  # a varint longer than ten bytes
