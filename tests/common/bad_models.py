"""A corpus of bad model inputs, reusable by the loader tests and the command-line tests.

Each builder writes its case into the given folder and returns the path to
pass to the loader (or the CLI). ``CASES`` lists ``(case_id, builder,
expected_error_class)``; the class is the most specific
:class:`~sonnx.base.errors.SonnxError` subclass the loader must raise.

Import as ``from tests.badinput.corpus import CASES`` (the repository root is
on ``sys.path`` through ``tests/conftest.py``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import (
    ExternalDataError,
    InputError,
    ModelFormatError,
    SonnxError,
    UnsafePathError,
    UnsupportedModelError,
)
from sonnx.loader import wire

Builder = Callable[[Path], str]


def _valid_model(ir_version: int = 8, opset: int = 17) -> onnx.ModelProto:
    w = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), "w")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializer=[w],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    return m


def rich_model_bytes() -> bytes:
    """A valid model using most of what the loader reads: a subgraph, a local function with an
    attribute reference, a sparse initializer, typed attributes. Mutation tests start from it."""

    def vi(name: str, shape: list[int], elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, elem, shape)

    body = helper.make_graph([helper.make_node("Add", ["x", "w"], ["z"], name="inner")], "b", [], [vi("z", [4])])
    fn = helper.make_function(
        "local", "f", ["a"], ["b"],
        [helper.make_node("LeakyRelu", ["a"], ["t"]), helper.make_node("Abs", ["t"], ["b"])],
        [helper.make_opsetid("", 17)], attributes=["k"],
    )
    fn.node[0].attribute.append(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT, ref_attr_name="k"))
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0], dtype=np.float32), "S"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), ""), [2])
    nodes = [
        helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body, name="if"),
        helper.make_node("f", ["y"], ["o"], domain="local", name="call", k=0.5),
        helper.make_node("Custom", ["o"], ["p"], domain="my", s=b"abc", ints=[1, 2], t=w,
                         tp=helper.make_tensor_type_proto(TensorProto.FLOAT, [2])),
    ]
    g = helper.make_graph(nodes, "main", [vi("c", [], TensorProto.BOOL), vi("x", [4])], [vi("p", [4])],
                          initializer=[w], sparse_initializer=[sparse])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1),
                                            helper.make_opsetid("my", 1)], functions=[fn])
    m.ir_version = 9
    return m.SerializeToString()


def _write(folder: Path, data: bytes, name: str = "model.onnx") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


def build_missing_path(folder: Path) -> str:
    return str(folder / "does_not_exist.onnx")


def build_directory(folder: Path) -> str:
    d = folder / "a_directory.onnx"
    d.mkdir()
    return str(d)


def build_empty_file(folder: Path) -> str:
    return _write(folder, b"")


def build_text_bytes(folder: Path) -> str:
    return _write(folder, b"hello world")


def build_random_bytes(folder: Path) -> str:
    rng = random.Random(20240611)
    return _write(folder, bytes(rng.randrange(256) for _ in range(4096)))


def build_truncated_protobuf(folder: Path) -> str:
    data = _valid_model().SerializeToString()
    return _write(folder, data[: len(data) // 2])


def build_protobuf_not_a_model(folder: Path) -> str:
    """Valid protobuf (a NodeProto) that has no graph when read as a model."""
    node = helper.make_node("Relu", ["x"], ["y"])
    return _write(folder, node.SerializeToString())


def build_unknown_ir_version(folder: Path) -> str:
    return _write(folder, _valid_model(ir_version=99).SerializeToString())


def build_missing_ir_version(folder: Path) -> str:
    m = _valid_model()
    m.ClearField("ir_version")
    return _write(folder, m.SerializeToString())


def build_unknown_opset(folder: Path) -> str:
    return _write(folder, _valid_model(opset=999).SerializeToString())


def build_no_opset_import(folder: Path) -> str:
    m = _valid_model()
    del m.opset_import[:]
    return _write(folder, m.SerializeToString())


def build_invalid_utf8_name(folder: Path) -> str:
    data = _valid_model().SerializeToString().replace(b"mm", b"m\xff")
    return _write(folder, data)


def _external(folder: Path) -> Path:
    path = folder / "model.onnx"
    onnx.save_model(
        _valid_model(), str(path), save_as_external_data=True, all_tensors_to_one_file=True,
        location="weights.bin", size_threshold=0,
    )
    return path


def _relocate(path: Path, location: str) -> None:
    m = onnx.load_model(str(path), load_external_data=False)
    for e in m.graph.initializer[0].external_data:
        if e.key == "location":
            e.value = location
    path.write_bytes(m.SerializeToString())


def build_missing_external_file(folder: Path) -> str:
    path = _external(folder)
    (folder / "weights.bin").unlink()
    return str(path)


def build_external_past_end(folder: Path) -> str:
    path = _external(folder)
    data = folder / "weights.bin"
    data.write_bytes(data.read_bytes()[:10])
    return str(path)


def build_external_absolute_path(folder: Path) -> str:
    path = _external(folder)
    _relocate(path, str((folder / "weights.bin").resolve()))
    return str(path)


def build_external_dotdot_path(folder: Path) -> str:
    inner = folder / "inner"
    inner.mkdir()
    path = _external(inner)
    (inner / "weights.bin").rename(folder / "weights.bin")
    _relocate(path, "../weights.bin")
    return str(path)


def build_external_symlink_escape(folder: Path) -> str:
    inner = folder / "inner"
    inner.mkdir()
    path = _external(inner)
    outside = folder / "outside.bin"
    (inner / "weights.bin").rename(outside)
    os.symlink(outside, inner / "weights.bin")
    return str(path)


def build_nested_graph_garbage(folder: Path) -> str:
    """A GRAPH attribute whose bytes are not a graph (only decoded when reached)."""
    bad_if = wire.node("If", ["c"], ["y"], attributes=[wire.graph_attribute("then_branch", b"\xff\xff\xff")])
    g = wire.graph("g", [bad_if], inputs=[wire.value_info("c", wire.BOOL, [])],
                   outputs=[wire.value_info("y", wire.FLOAT, [1])])
    return _write(folder, wire.model(g))


CASES: list[tuple[str, Builder, type[SonnxError]]] = [
    ("missing_path", build_missing_path, InputError),
    ("directory", build_directory, InputError),
    ("empty_file", build_empty_file, InputError),
    ("text_bytes", build_text_bytes, ModelFormatError),
    ("random_bytes", build_random_bytes, ModelFormatError),
    ("truncated_protobuf", build_truncated_protobuf, ModelFormatError),
    ("protobuf_not_a_model", build_protobuf_not_a_model, ModelFormatError),
    ("invalid_utf8_name", build_invalid_utf8_name, ModelFormatError),
    ("nested_graph_garbage", build_nested_graph_garbage, ModelFormatError),
    ("unknown_ir_version", build_unknown_ir_version, UnsupportedModelError),
    ("missing_ir_version", build_missing_ir_version, UnsupportedModelError),
    ("unknown_opset", build_unknown_opset, UnsupportedModelError),
    ("no_opset_import", build_no_opset_import, UnsupportedModelError),
    ("missing_external_file", build_missing_external_file, ExternalDataError),
    ("external_past_end", build_external_past_end, ExternalDataError),
    ("external_absolute_path", build_external_absolute_path, UnsafePathError),
    ("external_dotdot_path", build_external_dotdot_path, UnsafePathError),
    ("external_symlink_escape", build_external_symlink_escape, UnsafePathError),
]
"""(case id, builder, the exact error class the loader raises)."""
