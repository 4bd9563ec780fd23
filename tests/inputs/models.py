"""Small models with the input kinds of real ML exports: a STRING tensor, a map, a sequence, an optional.

Each reproduces the structure of a real export named by the corpus
(skl2onnx's LabelEncoder and DictVectorizer pipelines), small enough to
build in a test.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

ML = "ai.onnx.ml"
VOCABULARY = ["a", "b", "c"]


def _save(graph: onnx.GraphProto, path: Path, opsets: dict[str, int]) -> Path:
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)
    return path


def label_encoder(path: Path) -> Path:
    """x: STRING [N] -> y: INT64 [N] through LabelEncoder (unknown words give -1)."""
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain=ML, keys_strings=["cat", "dog", "fish"],
                            values_int64s=[0, 1, 2], default_int64=-1)
    g = helper.make_graph([node], "le", [helper.make_tensor_value_info("x", TensorProto.STRING, ["N"])],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, ["N"])])
    return _save(g, path, {"": 17, ML: 2})


def dict_vectorizer(path: Path) -> Path:
    """features: map(STRING -> FLOAT) -> variable: FLOAT [1, 3] through DictVectorizer over :data:`VOCABULARY`."""
    value = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    features = helper.make_value_info("features", helper.make_map_type_proto(TensorProto.STRING, value))
    node = helper.make_node("DictVectorizer", ["features"], ["variable"], domain=ML, string_vocabulary=VOCABULARY)
    g = helper.make_graph([node], "dv", [features], [helper.make_tensor_value_info("variable", TensorProto.FLOAT,
                                                                                  [1, 3])])
    return _save(g, path, {"": 17, ML: 3})


def cast_map(path: Path) -> Path:
    """m: map(INT64 -> FLOAT) -> y through CastMap: nothing in the model names the map's keys."""
    m = helper.make_value_info(
        "m", helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    )
    node = helper.make_node("CastMap", ["m"], ["y"], domain=ML, cast_to="TO_FLOAT", map_form="DENSE")
    g = helper.make_graph([node], "cm", [m], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "K"])])
    return _save(g, path, {"": 17, ML: 3})


def sequence_concat(path: Path) -> Path:
    """s: sequence(FLOAT [2, 3]) -> y: FLOAT [?, 3] through ConcatFromSequence (axis 0)."""
    s = helper.make_value_info(
        "s", helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2, 3]))
    )
    node = helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)
    g = helper.make_graph([node], "sq", [s], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])])
    return _save(g, path, {"": 17})


def optional_has(path: Path) -> Path:
    """o: optional(FLOAT [2]) -> y: BOOL through OptionalHasElement."""
    o = helper.make_value_info(
        "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    )
    node = helper.make_node("OptionalHasElement", ["o"], ["y"])
    g = helper.make_graph([node], "op", [o], [helper.make_tensor_value_info("y", TensorProto.BOOL, [])])
    return _save(g, path, {"": 18})
