"""Conversion of graphs, tensors, types and attributes by ``sonnx.loader.load_model``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import ModelFormatError, NonCanonicalValueError, UnsupportedModelError
from sonnx.loader import load_model
from sonnx.model import Attribute, Graph, Operation, Tensor, TensorType
from tests.common.builders import fvi, make_model

Save = Callable[..., str]


def test_simple_model_exact(save: Save) -> None:
    w = numpy_helper.from_array(np.array([1.5, -2.0], dtype=np.float32), "w")
    nodes = [
        helper.make_node("Add", ["x", "w"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu", domain="ai.onnx"),
    ]
    m = make_model(
        nodes, [fvi("x", [2])], [fvi("y", [2])], initializers=[w], value_info=[fvi("s", ["N"])],
        opsets=[("ai.onnx", 17), ("com.example", 3)], name="g0",
    )
    m.producer_name, m.producer_version, m.domain, m.model_version = "prod", "1.2", "org.test", 7
    m.doc_string = "about"
    helper.set_model_props(m, {"author": "me", "domain": "shadowed"})
    path = save(m)
    model = load_model(path)

    assert model.source == path
    assert model.ir_version == 9
    assert dict(model.opset_imports) == {"": 17, "com.example": 3}
    assert model.weights_loaded is True
    assert model.functions == () and model.call_cycles == ()
    assert dict(model.metadata) == {
        "producer_name": "prod", "producer_version": "1.2", "domain": "org.test", "model_version": "7",
        "doc_string": "about", "author": "me", "metadata_props:domain": "shadowed",
    }
    g = model.graph
    assert g.name == "g0"
    assert g.inputs == ("x",) and g.outputs == ("y",)
    assert g.operations == (
        Operation("Add", "", "add", ("x", "w"), ("s",), ()),
        Operation("Relu", "", "relu", ("s",), ("y",), ()),
    )
    assert list(g.tensors) == ["x", "y", "s", "w"]
    f2 = TensorType("tensor", TensorProto.FLOAT, (2,))
    assert g.tensors["x"] == Tensor("x", f2, None)
    assert g.tensors["y"] == Tensor("y", f2, None)
    assert g.tensors["s"] == Tensor("s", TensorType("tensor", TensorProto.FLOAT, ("N",)), None)
    wt = g.tensors["w"]
    assert wt.type == f2  # an initializer declares its own type when nothing else does
    iv = wt.initial_value
    assert iv is not None and iv.data_type == TensorProto.FLOAT and iv.dims == (2,)
    assert iv.sparse is False and iv.external is None
    np.testing.assert_array_equal(iv.read(), np.array([1.5, -2.0], dtype=np.float32))
    assert g.redeclared == ()
    assert g.initialized == ("w",)


def test_empty_names_and_multiple_outputs_kept(save: Save) -> None:
    nodes = [helper.make_node("Split", ["x", ""], ["a", "", "b"], name="")]
    model = load_model(save(make_model(nodes, [fvi("x")], [fvi("a"), fvi("b")])))
    assert model.graph.operations == (Operation("Split", "", "", ("x", ""), ("a", "", "b"), ()),)


def test_operator_and_domain_strings_are_shared(save: Save) -> None:
    """Every node of one operator holds the same string object (a large model holds one, not one per node)."""
    nodes = [
        helper.make_node("Add", ["x", "x"], ["a"]),
        helper.make_node("Custom", ["a"], ["b"], domain="com.example"),
        helper.make_node("Add", ["a", "b"], ["c"]),
        helper.make_node("Custom", ["c"], ["y"], domain="com.example"),
    ]
    model = load_model(save(make_model(nodes, [fvi("x")], [fvi("y")], opsets=[("", 17), ("com.example", 1)])))
    ops = model.graph.operations
    assert [(o.operator, o.domain) for o in ops] == [
        ("Add", ""), ("Custom", "com.example"), ("Add", ""), ("Custom", "com.example"),
    ]
    assert ops[0].operator is ops[2].operator
    assert ops[1].operator is ops[3].operator
    assert ops[1].domain is ops[3].domain


def test_types_of_every_kind(save: Save) -> None:
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.INT64, [3])
    opt = helper.make_value_info("opt", helper.make_optional_type_proto(helper.make_tensor_type_proto(1, None)))
    mp = helper.make_value_info(
        "mp", helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    sp = helper.make_sparse_tensor_value_info("sp", TensorProto.FLOAT, [4, None])
    unk = onnx.ValueInfoProto(name="unk")
    dims = helper.make_tensor_value_info("dims", TensorProto.DOUBLE, [2, "batch", None])
    opaque = onnx.ValueInfoProto(name="opq")
    opaque.type.opaque_type.domain = "x"
    nested = helper.make_value_info(
        "nested", helper.make_sequence_type_proto(helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.INT8, [1]))))
    model = load_model(save(make_model([], [seq, opt, mp, sp, unk, dims, opaque, nested], [])))
    t = {n: v.type for n, v in model.graph.tensors.items()}
    assert t["seq"] == TensorType("sequence", 0, None, TensorType("tensor", TensorProto.INT64, (3,)))
    assert t["opt"] == TensorType("optional", 0, None, TensorType("tensor", TensorProto.FLOAT, None))
    assert t["mp"] == TensorType("map", TensorProto.STRING, None, TensorType("tensor", TensorProto.FLOAT, ()))
    assert t["sp"] == TensorType("sparse_tensor", TensorProto.FLOAT, (4, None))
    assert t["unk"] is None
    assert t["dims"] == TensorType("tensor", TensorProto.DOUBLE, (2, "batch", None))
    assert t["opq"] == TensorType("opaque")
    assert t["nested"] == TensorType(
        "sequence", 0, None, TensorType("sequence", 0, None, TensorType("tensor", TensorProto.INT8, (1,))))


def test_every_attribute_type(save: Save) -> None:
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["z"])], "body", [], [fvi("z")])
    tensor = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3), "")
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([7.0, 8.0], dtype=np.float32), "sv"),
        numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "si"), [4])
    node = helper.make_node("Custom", ["x"], ["y"], name="c", domain="my")
    node.attribute.extend([
        helper.make_attribute("f", 0.25),
        helper.make_attribute("i", -3),
        helper.make_attribute("s", b"caf\xc3\xa9\xff"),
        helper.make_attribute("t", tensor),
        helper.make_attribute("g", body),
        helper.make_attribute("floats", [1.0, 2.5]),
        helper.make_attribute("ints", [1, 2, 3]),
        helper.make_attribute("strings", [b"a", b"\xfe"]),
        helper.make_attribute("tensors", [tensor, tensor]),
        helper.make_attribute("graphs", [body, body]),
        helper.make_attribute("sp", sparse),
        helper.make_attribute("sps", [sparse]),
        helper.make_attribute("tp", helper.make_tensor_type_proto(TensorProto.BOOL, [2])),
        helper.make_attribute("tps", [helper.make_tensor_type_proto(TensorProto.BOOL, [])]),
    ])
    model = load_model(save(make_model([node], [fvi("x")], [fvi("y")], opsets=[("", 17), ("my", 1)])))
    (op,) = model.graph.operations
    assert [(a.name, a.type) for a in op.attributes] == [
        ("f", "FLOAT"), ("i", "INT"), ("s", "STRING"), ("t", "TENSOR"), ("g", "GRAPH"), ("floats", "FLOATS"),
        ("ints", "INTS"), ("strings", "STRINGS"), ("tensors", "TENSORS"), ("graphs", "GRAPHS"),
        ("sp", "SPARSE_TENSOR"), ("sps", "SPARSE_TENSORS"), ("tp", "TYPE_PROTO"), ("tps", "TYPE_PROTOS"),
    ]
    v = {a.name: a.value for a in op.attributes}
    assert v["f"] == 0.25 and v["i"] == -3
    assert v["s"] == "café\udcff"  # invalid UTF-8 kept losslessly
    assert v["s"].encode("utf-8", "surrogateescape") == b"caf\xc3\xa9\xff"
    assert v["floats"] == (1.0, 2.5) and v["ints"] == (1, 2, 3) and v["strings"] == ("a", "\udcfe")
    np.testing.assert_array_equal(v["t"].read(), np.arange(6).reshape(2, 3))
    assert v["t"].dims == (2, 3) and v["t"].data_type == TensorProto.INT64
    assert len(v["tensors"]) == 2
    np.testing.assert_array_equal(v["tensors"][1].read(), np.arange(6).reshape(2, 3))
    assert isinstance(v["g"], Graph) and v["g"].name == "body"
    assert v["g"].operations == (Operation("Identity", "", "", ("x",), ("z",), ()),)
    assert v["g"].captures == frozenset({"x"})
    assert len(v["graphs"]) == 2 and all(isinstance(x, Graph) for x in v["graphs"])
    assert v["graphs"][0] is not v["graphs"][1]
    assert v["sp"].sparse is True and v["sp"].dims == (4,)
    np.testing.assert_array_equal(v["sp"].read(), np.array([0, 7, 0, 8], dtype=np.float32))
    np.testing.assert_array_equal(v["sps"][0].read(), np.array([0, 7, 0, 8], dtype=np.float32))
    assert v["tp"] == TensorType("tensor", TensorProto.BOOL, (2,))
    assert v["tps"] == (TensorType("tensor", TensorProto.BOOL, ()),)
    assert op.subgraphs == (("g", v["g"]), ("graphs[0]", v["graphs"][0]), ("graphs[1]", v["graphs"][1]))


def test_untyped_attribute_is_inferred(save: Save) -> None:
    node = helper.make_node("Custom", ["x"], ["y"], domain="my")
    a = node.attribute.add()
    a.name, a.i = "k", 4  # no 'type', as in old files
    b = node.attribute.add()
    b.name = "floats"
    b.floats.extend([1.0])
    c = node.attribute.add()
    c.name = "empty"  # nothing set at all: the type cannot be known
    model = load_model(save(make_model([node], [fvi("x")], [fvi("y")], opsets=[("", 17), ("my", 1)])))
    assert model.graph.operations[0].attributes == (
        Attribute("k", "INT", 4), Attribute("floats", "FLOATS", (1.0,)), Attribute("empty", "UNDEFINED", None))


def test_untyped_attribute_with_two_values_is_rejected(save: Save) -> None:
    node = helper.make_node("Custom", ["x"], ["y"], domain="my")
    a = node.attribute.add()
    a.name, a.i, a.f = "k", 4, 1.0
    with pytest.raises(ModelFormatError, match="several values"):
        load_model(save(make_model([node], [fvi("x")], [fvi("y")])))


def test_reference_outside_function_is_rejected(save: Save) -> None:
    node = helper.make_node("Custom", ["x"], ["y"], domain="my")
    node.attribute.append(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT, ref_attr_name="a"))
    with pytest.raises(ModelFormatError, match="outside a function"):
        load_model(save(make_model([node], [fvi("x")], [fvi("y")])))


def test_redeclared_names(save: Save) -> None:
    i1 = numpy_helper.from_array(np.array([1.0], dtype=np.float32), "w")
    i2 = numpy_helper.from_array(np.array([2.0], dtype=np.float32), "w")
    m = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [fvi("x"), fvi("x")], [fvi("y"), fvi("y")], initializers=[i1, i2], value_info=[fvi("v"), fvi("v")],
    )
    g = load_model(save(m)).graph
    assert set(g.redeclared) == {("x", "input"), ("y", "output"), ("v", "value_info"), ("w", "initializer")}
    assert g.inputs == ("x", "x") and g.outputs == ("y", "y")
    value = g.tensors["w"].initial_value
    assert value is not None
    np.testing.assert_array_equal(value.read(), [1.0])  # the first definition is kept


def test_ir3_initializers_listed_as_inputs_are_not_inputs(save: Save) -> None:
    w = numpy_helper.from_array(np.array([3.0], dtype=np.float32), "w")
    m = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [fvi("x"), fvi("w", [1])], [fvi("y")],
        initializers=[w], ir_version=3, opsets=[("", 8)],
    )
    g = load_model(save(m)).graph
    assert g.inputs == ("x",)
    t = g.tensors["w"]
    assert t.type == TensorType("tensor", TensorProto.FLOAT, (1,))
    assert t.initial_value is not None
    np.testing.assert_array_equal(t.initial_value.read(), [3.0])


def test_ir4_input_with_initializer_stays_an_input(save: Save) -> None:
    w = numpy_helper.from_array(np.array([3.0], dtype=np.float32), "w")
    m = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [fvi("x"), fvi("w", ["n"])], [fvi("y")],
        initializers=[w], ir_version=4, opsets=[("", 9)],
    )
    g = load_model(save(m)).graph
    assert g.inputs == ("x", "w")
    t = g.tensors["w"]
    assert t.type == TensorType("tensor", TensorProto.FLOAT, ("n",))  # the declared type wins
    assert t.initial_value is not None and t.initial_value.dims == (1,)


def test_sparse_initializer(save: Save) -> None:
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5, 6], dtype=np.int32), "S"),
        numpy_helper.from_array(np.array([[0, 1], [1, 0]], dtype=np.int64), "S_idx"), [2, 2])
    m = make_model([helper.make_node("Identity", ["S"], ["y"])], [], [fvi("y", [2, 2], TensorProto.INT32)],
                   sparse_initializer=[sp])
    g = load_model(save(m)).graph
    t = g.tensors["S"]
    assert t.type == TensorType("sparse_tensor", TensorProto.INT32, (2, 2))
    assert t.initial_value is not None and t.initial_value.sparse
    np.testing.assert_array_equal(t.initial_value.read(), np.array([[0, 5], [6, 0]], dtype=np.int32))


def test_sparse_initializer_with_bad_indices_fails_on_read(save: Save) -> None:
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0], dtype=np.float32), "S"),
        numpy_helper.from_array(np.array([9], dtype=np.int64), "S_idx"), [2])
    m = make_model([helper.make_node("Identity", ["S"], ["y"])], [], [fvi("y", [2])], sparse_initializer=[sp])
    iv = load_model(save(m)).graph.tensors["S"].initial_value
    assert iv is not None
    with pytest.raises(ModelFormatError, match="out of range"):
        iv.read()


@pytest.mark.parametrize(
    ("indices", "dims"),
    [([1, 1], [4]), ([3, 0, 3], [4]), ([[0, 1], [1, 0], [0, 1]], [2, 2])],
    ids=["linear", "linear-unsorted", "coordinates"],
)
def test_a_sparse_position_named_twice_is_not_canonical(save: Save, indices: list, dims: list[int]) -> None:
    # onnxruntime keeps the last of the two values, onnx's checker refuses the order: which value the tensor holds
    # is the runtime's choice, so the value is not read (spec, reading A13)
    nnz = len(indices)
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.arange(1, nnz + 1, dtype=np.float32), "S"),
        numpy_helper.from_array(np.array(indices, dtype=np.int64), "S_idx"), dims)
    m = make_model([helper.make_node("Identity", ["S"], ["y"])], [], [fvi("y", dims)], sparse_initializer=[sp])
    iv = load_model(save(m)).graph.tensors["S"].initial_value
    assert iv is not None
    with pytest.raises(NonCanonicalValueError, match="named twice"):
        iv.read()


def test_sparse_indices_out_of_order_but_distinct_are_read(save: Save) -> None:
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0, 7.0], dtype=np.float32), "S"),
        numpy_helper.from_array(np.array([2, 1], dtype=np.int64), "S_idx"), [4])
    m = make_model([helper.make_node("Identity", ["S"], ["y"])], [], [fvi("y", [4])], sparse_initializer=[sp])
    iv = load_model(save(m)).graph.tensors["S"].initial_value
    assert iv is not None
    np.testing.assert_array_equal(iv.read(), np.array([0.0, 7.0, 5.0, 0.0], dtype=np.float32))


def test_embedded_value_with_wrong_size_fails_on_read(save: Save) -> None:
    bad = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3], raw_data=b"\x00" * 8)
    m = make_model([helper.make_node("Identity", ["w"], ["y"])], [], [fvi("y", [3])], initializers=[bad])
    iv = load_model(save(m)).graph.tensors["w"].initial_value
    assert iv is not None
    with pytest.raises(ModelFormatError, match="'w'"):
        iv.read()


def test_invalid_utf8_name_is_rejected_but_doc_string_is_not(save: Save) -> None:
    m = make_model([helper.make_node("Relu", ["x"], ["y"], name="NAME")], [fvi("x")], [fvi("y")])
    m.graph.node[0].doc_string = "DOCS"
    data = m.SerializeToString()
    loaded = load_model(save(data.replace(b"DOCS", b"D\xffCS")))
    assert loaded.graph.operations[0].name == "NAME"
    with pytest.raises(ModelFormatError, match="UTF-8"):
        load_model(save(data.replace(b"NAME", b"N\xffME"), "bad.onnx"))


def test_opsets_below_ir3_default_to_one(save: Save) -> None:
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [fvi("x")], [fvi("y")], ir_version=2, opsets=[])
    del m.opset_import[:]
    assert dict(load_model(save(m)).opset_imports) == {"": 1}


@pytest.mark.parametrize("version", [0, -1, 10_000])
def test_out_of_range_default_opset_is_unsupported(save: Save, version: int) -> None:
    with pytest.raises(UnsupportedModelError, match=f"opset {version}"):
        load_model(save(make_model([], [], [], opsets=[("", version)])))


@pytest.mark.parametrize("ir_version", [-3, 0, onnx.IR_VERSION + 1])
def test_unknown_ir_versions_are_unsupported(save: Save, ir_version: int) -> None:
    with pytest.raises(UnsupportedModelError, match="IR version"):
        load_model(save(make_model([], [], [], ir_version=ir_version)))


def test_other_domains_are_recorded_at_any_version(save: Save) -> None:
    m = make_model([], [], [], opsets=[("", onnx.defs.onnx_opset_version()), ("com.vendor", 12345)])
    assert dict(load_model(save(m)).opset_imports) == {"": onnx.defs.onnx_opset_version(), "com.vendor": 12345}


def test_conflicting_opset_imports_are_rejected(save: Save) -> None:
    m = make_model([], [], [], opsets=[("", 17), ("ai.onnx", 16)])
    with pytest.raises(ModelFormatError, match="twice"):
        load_model(save(m))


def test_loop_and_scan_bodies_and_captures(save: Save) -> None:
    body = helper.make_graph(
        [helper.make_node("Add", ["v_in", "outer"], ["v_out"]), helper.make_node("Identity", ["cond"], ["c_out"])],
        "loop_body", [fvi("i", []), fvi("cond", [], TensorProto.BOOL), fvi("v_in")],
        [fvi("c_out", [], TensorProto.BOOL), fvi("v_out")])
    scan_body = helper.make_graph([helper.make_node("Mul", ["s", "outer"], ["s2"])], "scan_body",
                                  [fvi("s")], [fvi("s2")])
    nodes = [
        helper.make_node("Loop", ["n", "", "x"], ["lx"], body=body, name="loop"),
        helper.make_node("Scan", ["x"], ["sx"], body=scan_body, num_scan_inputs=1, name="scan"),
    ]
    m = make_model(nodes, [fvi("n", [], TensorProto.INT64), fvi("x"), fvi("outer")], [fvi("lx"), fvi("sx")])
    g = load_model(save(m)).graph
    loop, scan = g.operations
    assert loop.input_mapping == ("n", "", "x")
    assert loop.attributes[0].name == "body" and loop.attributes[0].value.name == "loop_body"
    assert loop.implicit_inputs == ("outer",)
    assert scan.attributes[0].value.inputs == ("s",)
    assert scan.attribute("num_scan_inputs") == Attribute("num_scan_inputs", "INT", 1)
    assert scan.implicit_inputs == ("outer",)
    assert g.captures == frozenset()
    assert [p for p, _ in g.nested()] == ["main", "main/Loop:loop.body", "main/Scan:scan.body"]


def test_sparse_initializer_too_large_to_densify_fails_cleanly(save: Save) -> None:
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0], dtype=np.float32), "S"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "S_idx"), [2**40, 2**40])
    m = make_model([helper.make_node("Identity", ["S"], ["y"])], [], [fvi("y", None)], sparse_initializer=[sp])
    iv = load_model(save(m)).graph.tensors["S"].initial_value
    assert iv is not None and iv.dims == (2**40, 2**40)
    with pytest.raises(ModelFormatError, match="cannot be built"):
        iv.read()
