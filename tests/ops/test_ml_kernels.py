"""The ai.onnx.ml kernels against hand-computed expectations, run through the loader and executor.

onnx ships backend node cases for only four of these operators
(tests/conformance); the expectations here are worked out by hand (the
comments show the arithmetic) or by a direct formula, never by the kernels'
own helpers. The last section compares models shaped like skl2onnx's output
with onnxruntime, the runtime those models are made for.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.errors import SonnxError
from sonnx.execution.backend import SonnxBackend
from sonnx.ops import REGISTRY
from sonnx.ops._ml import post_transform, probit
from tests.common import peers

ML = "ai.onnx.ml"

_ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(object): TensorProto.STRING,
}


def _tensor_type(elem: int) -> onnx.TypeProto:
    return helper.make_tensor_type_proto(elem, None)


def _map_type(key: int, value: int) -> onnx.TypeProto:
    return helper.make_map_type_proto(key, _tensor_type(value))


def ml_model(
    op: str,
    inputs: Sequence[Any],
    outputs: Sequence[onnx.TypeProto],
    attrs: dict[str, Any],
    opset: int = 1,
    input_types: Sequence[onnx.TypeProto | None] | None = None,
) -> onnx.ModelProto:
    """A one-node model of ``ai.onnx.ml::op`` with inputs x0, x1... and outputs y0, y1..."""
    ins = []
    for k, x in enumerate(inputs):
        given = input_types[k] if input_types is not None else None
        ins.append(helper.make_value_info(f"x{k}", given if given is not None else _tensor_type(_ELEM[x.dtype])))
    outs = [helper.make_value_info(f"y{k}", t) for k, t in enumerate(outputs)]
    node = helper.make_node(op, [f"x{k}" for k in range(len(inputs))], [f"y{k}" for k in range(len(outputs))],
                            domain=ML, **attrs)
    graph = helper.make_graph([node], op, ins, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, opset)])
    model.ir_version = 8
    return model


def run(model: onnx.ModelProto, *inputs: Any) -> list[Any]:
    return list(SonnxBackend.prepare(model).run(list(inputs)))


def run_node(op: str, inputs: Sequence[Any], outputs: Sequence[int], attrs: dict[str, Any], opset: int = 1,
             input_types: Sequence[onnx.TypeProto | None] | None = None) -> list[Any]:
    """Run one node whose outputs are tensors of the given element types."""
    model = ml_model(op, inputs, [_tensor_type(e) for e in outputs], attrs, opset, input_types)
    return run(model, *inputs)


F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
STR = TensorProto.STRING


def f32(*rows: Any) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


# ------------------------------------------------------------------------------------- registration


ML_VERSIONS = {
    "ArrayFeatureExtractor": [1], "Binarizer": [1], "CastMap": [1], "CategoryMapper": [1], "DictVectorizer": [1],
    "FeatureVectorizer": [1], "Imputer": [1], "LabelEncoder": [1, 2, 4], "LinearClassifier": [1],
    "LinearRegressor": [1], "Normalizer": [1], "OneHotEncoder": [1], "SVMClassifier": [1], "SVMRegressor": [1],
    "Scaler": [1], "TreeEnsemble": [5], "TreeEnsembleClassifier": [1, 3, 5], "TreeEnsembleRegressor": [1, 3, 5],
    "ZipMap": [1],
}


def test_every_ml_operator_and_version_has_a_kernel() -> None:
    schemas: dict[str, list[int]] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain == ML:
            schemas.setdefault(s.name, []).append(s.since_version)
    assert {k: sorted(v) for k, v in schemas.items()} == ML_VERSIONS
    for op, versions in ML_VERSIONS.items():
        for v in versions:
            assert (ML, op, v) in REGISTRY


# ----------------------------------------------------------------------------------- post transforms


def test_probit_is_the_normal_quantile() -> None:
    p = np.array([1e-9, 0.001, 0.02425, 0.1, 0.3, 0.5, 0.7, 0.97575, 0.999, 1 - 1e-9])
    want = [statistics.NormalDist().inv_cdf(float(v)) for v in p]
    np.testing.assert_allclose(probit(p), want, rtol=2e-9, atol=1e-12)
    assert probit(np.array([0.0]))[0] == -np.inf and probit(np.array([1.0]))[0] == np.inf
    assert np.isnan(probit(np.array([-0.5, 1.5]))).all()


def test_post_transforms_by_hand() -> None:
    s = f32([1.0, 0.0, -1.0], [0.0, 0.0, 0.0])
    e = math.e
    np.testing.assert_allclose(post_transform(s, "SOFTMAX")[0], [e / (e + 1 + 1 / e), 1 / (e + 1 + 1 / e),
                                                                 (1 / e) / (e + 1 + 1 / e)], rtol=1e-6)
    np.testing.assert_allclose(post_transform(s, "SOFTMAX")[1], [1 / 3] * 3, rtol=1e-6)
    # SOFTMAX_ZERO: the zero score stays 0, the others share the mass; a row of zeros stays zeros
    np.testing.assert_allclose(post_transform(s, "SOFTMAX_ZERO"), [[e / (e + 1 / e), 0, (1 / e) / (e + 1 / e)],
                                                                   [0, 0, 0]], rtol=1e-6)
    np.testing.assert_allclose(post_transform(s, "LOGISTIC")[0], [1 / (1 + 1 / e), 0.5, 1 / (1 + e)], rtol=1e-6)
    assert post_transform(s, "LOGISTIC").dtype == np.float32
    # the logistic of a large negative score is tiny but not 0 - 1 rounding
    assert post_transform(f32([-30.0]), "LOGISTIC")[0, 0] == pytest.approx(1 / (1 + math.exp(30)), rel=1e-6)
    with pytest.raises(ValueError, match="post_transform"):
        post_transform(s, "SIGMOID")


# ------------------------------------------------------------------- element-wise and layout kernels


def test_array_feature_extractor_shapes_and_refusal() -> None:
    x = np.arange(5, dtype=np.float32)
    (z,) = run_node("ArrayFeatureExtractor", [x, np.array([3, 0, 3], np.int64)], [F32], {})
    assert z.shape == (1, 3) and z.tolist() == [[3, 0, 3]]
    x3 = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    (z,) = run_node("ArrayFeatureExtractor", [x3, np.array([[1], [3]], np.int64)], [I64], {})
    assert z.shape == (2, 3, 2) and z[1, 2].tolist() == [21, 23]
    s = np.array([["a", "b"], ["c", "d"]], dtype=object)
    (z,) = run_node("ArrayFeatureExtractor", [s, np.array([1], np.int64)], [STR], {})
    assert z.tolist() == [["b"], ["d"]]
    with pytest.raises(SonnxError, match="out of range"):
        run_node("ArrayFeatureExtractor", [s, np.array([2], np.int64)], [STR], {})


def test_binarizer_keeps_the_type_and_maps_nan_to_zero() -> None:
    (y,) = run_node("Binarizer", [np.array([[1, 2, 3]], np.int64)], [I64], {"threshold": 2.0})
    assert y.dtype == np.int64 and y.tolist() == [[0, 0, 1]]
    (y,) = run_node("Binarizer", [f32(np.nan, 0.5, -1.0)], [F32], {})
    assert y.tolist() == [0, 1, 0]


def test_cast_map_dense_and_sparse() -> None:
    m = {5: 3.0, 1: 2.5, 0: -1.0}
    in_type = [_map_type(I64, F32)]
    model = ml_model("CastMap", [np.zeros(1)], [_tensor_type(F32)], {}, input_types=in_type)
    (y,) = run(model, m)
    assert y.dtype == np.float32 and y.tolist() == [[-1.0, 2.5, 3.0]]  # ordered by key 0, 1, 5
    model = ml_model("CastMap", [np.zeros(1)], [_tensor_type(I64)],
                     {"map_form": "SPARSE", "max_map": 7, "cast_to": "TO_INT64"}, input_types=in_type)
    (y,) = run(model, m)
    assert y.dtype == np.int64 and y.tolist() == [[-1, 2, 0, 0, 0, 3, 0]]  # 2.5 truncates to 2
    model = ml_model("CastMap", [np.zeros(1)], [_tensor_type(STR)],
                     {"map_form": "SPARSE", "max_map": 3, "cast_to": "TO_STRING"}, input_types=in_type)
    with pytest.raises(SonnxError, match="outside"):
        run(model, m)
    (y,) = run(model, {1: 2.5, 0: -1.0})
    assert y.tolist() == [["-1.000000", "2.500000", "0.f"]]


def test_category_mapper_both_directions() -> None:
    attrs = {"cats_strings": ["cat", "dog", "cow"], "cats_int64s": [1, 7, 3], "default_int64": 99,
             "default_string": "?"}
    (y,) = run_node("CategoryMapper", [np.array([["dog", "cat"], ["pig", "cow"]], dtype=object)], [I64], attrs)
    assert y.dtype == np.int64 and y.tolist() == [[7, 1], [99, 3]]
    (y,) = run_node("CategoryMapper", [np.array([3, 2, 1], np.int64)], [STR], attrs)
    assert y.tolist() == ["cow", "?", "cat"]


def test_dict_vectorizer() -> None:
    model = ml_model("DictVectorizer", [np.zeros(1)], [_tensor_type(F32)], {"string_vocabulary": ["a", "c", "b", "z"]},
                     input_types=[_map_type(STR, F32)])
    (y,) = run(model, {"a": 4.0, "c": 8.0})
    assert y.dtype == np.float32 and y.tolist() == [[4, 8, 0, 0]]
    (y,) = run(model, {"b": np.float64(0.5)})  # a double map gives a double tensor
    assert y.dtype == np.float64 and y.tolist() == [[0, 0, 0.5, 0]]
    model = ml_model("DictVectorizer", [np.zeros(1)], [_tensor_type(STR)], {"int64_vocabulary": [3, 1, 2]},
                     input_types=[_map_type(I64, STR)])
    (y,) = run(model, {1: "x", 2: "y"})
    assert y.tolist() == [["", "x", "y"]]


def test_feature_vectorizer_pads_and_truncates() -> None:
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    b = np.array([[10, 11], [12, 13]], np.int64)
    (y,) = run_node("FeatureVectorizer", [a, b], [F32], {"inputdimensions": [2, 3]})
    assert y.dtype == np.float32 and y.tolist() == [[0, 1, 10, 11, 0], [3, 4, 12, 13, 0]]
    with pytest.raises(SonnxError, match="batch sizes"):
        run_node("FeatureVectorizer", [np.arange(3, dtype=np.int64), b], [F32], {"inputdimensions": [3, 2]})


def test_imputer() -> None:
    x = f32([1, np.nan, 3], [np.nan, 5, np.nan])
    (y,) = run_node("Imputer", [x], [F32], {"imputed_value_floats": [9.0, 8.0, 7.0], "replaced_value_float": np.nan})
    assert y.tolist() == [[1, 8, 3], [9, 5, 7]]
    (y,) = run_node("Imputer", [np.array([[1, -1], [-1, 2]], np.int64)], [I64],
                    {"imputed_value_int64s": [0], "replaced_value_int64": -1})
    assert y.tolist() == [[1, 0], [0, 2]]
    with pytest.raises(SonnxError, match="imputed values for 3 features"):
        run_node("Imputer", [x], [F32], {"imputed_value_floats": [1.0, 2.0], "replaced_value_float": 0.0})


def test_label_encoder_1() -> None:
    attrs = {"classes_strings": ["b", "a", "b"], "default_int64": 42, "default_string": "Q"}
    (y,) = run_node("LabelEncoder", [np.array(["a", "b", "z"], dtype=object)], [I64], attrs, opset=1)
    assert y.tolist() == [1, 2, 42]  # "b" is listed twice: its last position
    (y,) = run_node("LabelEncoder", [np.array([0, 2, 5, -1], np.int64)], [STR], attrs, opset=1)
    assert y.tolist() == ["b", "b", "Q", "Q"]


def test_label_encoder_2_float_keys_compare_bits() -> None:
    x = f32(1.0, np.nan, -0.0, 0.0, 3.0)
    attrs = {"keys_floats": [1.0, float("nan"), 0.0, 1.0], "values_int64s": [10, 20, 30, 40]}
    (y,) = run_node("LabelEncoder", [x], [I64], attrs, opset=2)
    # NaN finds the NaN key (same bits); -0.0 is not 0.0 bit for bit; a repeated key keeps its first value
    assert y.tolist() == [10, 20, -1, 30, -1]
    (y,) = run_node("LabelEncoder", [x], [F32], {"keys_floats": [3.0], "values_floats": [0.5]}, opset=2)
    assert y.tolist() == [-0.0, -0.0, -0.0, -0.0, 0.5] and np.signbit(y[0])


def test_label_encoder_4() -> None:
    x = f32(1.0, np.nan, -0.0, 2.0)
    attrs = {"keys_floats": [1.0, float("nan"), 0.0, 1.0], "values_int64s": [10, 20, 30, 40]}
    (y,) = run_node("LabelEncoder", [x], [I64], attrs, opset=4)
    assert y.tolist() == [40, 20, 30, -1]  # last of a repeated key; -0.0 equals 0.0 by value
    tensors = {
        "keys_tensor": helper.make_tensor("k", TensorProto.INT32, (2,), [1, 2]),
        "values_tensor": helper.make_tensor("v", TensorProto.INT16, (2,), [7, 8]),
        "default_tensor": helper.make_tensor("d", TensorProto.INT16, (1,), [-5]),
    }
    (y,) = run_node("LabelEncoder", [np.array([[1, 5], [2, 2]], np.int32)], [TensorProto.INT16], tensors, opset=4)
    assert y.dtype == np.int16 and y.tolist() == [[7, -5], [8, 8]]
    doubles = helper.make_tensor("v", TensorProto.DOUBLE, (2,), [1.5, 2.5])
    strings = {"keys_strings": ["a", "b"], "values_tensor": doubles}
    (y,) = run_node("LabelEncoder", [np.array(["b", "x"], dtype=object)], [TensorProto.DOUBLE], strings, opset=4)
    assert y.dtype == np.float64 and y.tolist() == [2.5, -0.0]


def test_normalizer_by_hand() -> None:
    x = f32([1, -2, 2], [0, 0, 0], [-1, -2, -4])
    (y,) = run_node("Normalizer", [x], [F32], {"norm": "MAX"})
    np.testing.assert_allclose(y, [[0.5, -1, 1], [0, 0, 0], [1, 2, 4]])  # divided by 2, kept, divided by -1
    (y,) = run_node("Normalizer", [x], [F32], {"norm": "L1"})
    np.testing.assert_allclose(y, [[0.2, -0.4, 0.4], [0, 0, 0], [-1 / 7, -2 / 7, -4 / 7]], rtol=1e-6)
    (y,) = run_node("Normalizer", [x], [F32], {"norm": "L2"})
    np.testing.assert_allclose(y, [[1 / 3, -2 / 3, 2 / 3], [0, 0, 0], np.array([-1, -2, -4]) / math.sqrt(21)],
                               rtol=1e-6)
    (y,) = run_node("Normalizer", [np.array([3, 4], np.int64)], [F32], {"norm": "L2"})
    assert y.dtype == np.float32 and y.tolist() == pytest.approx([0.6, 0.8])


def test_one_hot_encoder() -> None:
    (y,) = run_node("OneHotEncoder", [np.array([[1, 4], [7, 2]], np.int64)], [F32], {"cats_int64s": [4, 1, 2]})
    assert y.shape == (2, 2, 3)
    assert y.tolist() == [[[0, 1, 0], [1, 0, 0]], [[0, 0, 0], [0, 0, 1]]]
    (y,) = run_node("OneHotEncoder", [f32(1.7, -2.5)], [F32], {"cats_int64s": [-2, 1]})
    assert y.tolist() == [[0, 1], [1, 0]]  # 1.7 -> 1, -2.5 -> -2
    (y,) = run_node("OneHotEncoder", [np.array(["b", "q"], dtype=object)], [F32], {"cats_strings": ["a", "b"]})
    assert y.tolist() == [[0, 1], [0, 0]]
    with pytest.raises(SonnxError, match="no category"):
        run_node("OneHotEncoder", [np.array([7], np.int64)], [F32], {"cats_int64s": [1], "zeros": 0})


def test_scaler() -> None:
    x = f32([1, 2], [3, 4])
    (y,) = run_node("Scaler", [x], [F32], {"offset": [1.0, 2.0], "scale": [2.0, 0.5]})
    assert y.tolist() == [[0, 0], [4, 1]]  # (3-1)*2, (4-2)*0.5
    (y,) = run_node("Scaler", [np.array([[1, 2]], np.int64)], [F32], {"offset": [1.0], "scale": [3.0]})
    assert y.dtype == np.float32 and y.tolist() == [[0, 3]]


def test_zip_map() -> None:
    x = f32([0.25, 0.75], [1.0, 0.0])
    seq = helper.make_sequence_type_proto(_map_type(STR, F32))
    (z,) = run(ml_model("ZipMap", [x], [seq], {"classlabels_strings": ["no", "yes"]}), x)
    assert z == [{"no": 0.25, "yes": 0.75}, {"no": 1.0, "yes": 0.0}]
    assert isinstance(z[0]["no"], np.float32)
    seq = helper.make_sequence_type_proto(_map_type(I64, F32))
    (z,) = run(ml_model("ZipMap", [x], [seq], {"classlabels_int64s": [3, 9]}), x)
    assert list(z[1]) == [3, 9]


# -------------------------------------------------------------------------------------- linear models


def test_linear_regressor() -> None:
    x = f32([1, 2], [-1, 0.5])
    attrs = {"coefficients": [0.5, -1.0, 1.0, 1.0], "intercepts": [0.25, 1.0], "targets": 2}
    (y,) = run_node("LinearRegressor", [x], [F32], attrs)
    assert y.tolist() == [[-1.25, 4.0], [-0.75, 0.5]]  # 0.5-2+0.25, 1+2+1 ; -0.5-0.5+0.25, -1+0.5+1
    (y,) = run_node("LinearRegressor", [f32(1, 2)], [F32], {"coefficients": [0.5, -1.0]})
    assert y.tolist() == [[-1.5]]


def test_linear_classifier_multiclass_and_binary() -> None:
    x = f32([1, 2], [-1, 0.5], [0, 0])
    three = {"coefficients": [1, 0, 0, 1, -1, -1.0], "intercepts": [0.0, 0.5, 0.0], "classlabels_ints": [5, 6, 7]}
    label, z = run_node("LinearClassifier", [x], [I64, F32], three)
    # scores: [1, 2.5, -3], [-1, 1, 0.5], [0, 0.5, 0]
    assert label.tolist() == [6, 6, 6] and z.tolist() == [[1, 2.5, -3], [-1, 1, 0.5], [0, 0.5, 0]]
    # skl2onnx's binary logistic regression: rows -w and w, LOGISTIC
    two = {"coefficients": [-0.5, 1.0, 0.5, -1.0], "intercepts": [-0.25, 0.25], "classlabels_strings": ["n", "p"],
           "post_transform": "LOGISTIC"}
    label, z = run_node("LinearClassifier", [x], [STR, F32], two)
    s = np.array([-1.25, -0.75, 0.25])  # w.x + b for the second row
    assert label.tolist() == ["n", "n", "p"]
    np.testing.assert_allclose(z, np.stack([1 / (1 + np.exp(s)), 1 / (1 + np.exp(-s))], axis=1), rtol=1e-6)
    # one row: a binary classifier on one score, Z = [1 - s, s]
    one = {"coefficients": [0.5, -1.0], "intercepts": [0.25], "classlabels_ints": [0, 1]}
    label, z = run_node("LinearClassifier", [x], [I64, F32], one)
    assert label.tolist() == [0, 0, 1] and z.tolist() == [[2.25, -1.25], [1.75, -0.75], [0.75, 0.25]]
    with pytest.raises(SonnxError, match="2 labels"):
        run_node("LinearClassifier", [x], [I64, F32], {**one, "classlabels_ints": [0, 1, 2]})


# ------------------------------------------------------------------------------------- tree ensembles

# One tree on feature 0: node 0 compares with 0.5, its true child is leaf 1, its false child is leaf 2.
STUMP = {
    "nodes_treeids": [0, 0, 0], "nodes_nodeids": [0, 1, 2], "nodes_featureids": [0, 0, 0],
    "nodes_modes": ["BRANCH_LEQ", "LEAF", "LEAF"], "nodes_values": [0.5, 0.0, 0.0],
    "nodes_truenodeids": [1, 0, 0], "nodes_falsenodeids": [2, 0, 0],
}


def regressor(attrs: dict[str, Any], x: np.ndarray, opset: int = 3) -> np.ndarray:
    return run_node("TreeEnsembleRegressor", [x], [F32], attrs, opset=opset)[0]


@pytest.mark.parametrize(
    "mode,expected",
    [("BRANCH_LEQ", [1, 1, 2, 2]), ("BRANCH_LT", [1, 2, 2, 2]), ("BRANCH_GTE", [2, 1, 1, 2]),
     ("BRANCH_GT", [2, 2, 1, 2]), ("BRANCH_EQ", [2, 1, 2, 2]), ("BRANCH_NEQ", [1, 2, 1, 1])],
)
def test_tree_node_modes(mode: str, expected: list[float]) -> None:
    # x = 0, 0.5, 1, NaN; the true leaf weighs 1, the false leaf 2; NaN fails every comparison but NEQ
    attrs = {**STUMP, "nodes_modes": [mode, "LEAF", "LEAF"], "target_treeids": [0, 0], "target_nodeids": [1, 2],
             "target_ids": [0, 0], "target_weights": [1.0, 2.0], "n_targets": 1}
    y = regressor(attrs, f32([0.0], [0.5], [1.0], [np.nan]))
    assert y.ravel().tolist() == expected


def test_tree_missing_value_tracks_true() -> None:
    attrs = {**STUMP, "target_treeids": [0, 0], "target_nodeids": [1, 2], "target_ids": [0, 0],
             "target_weights": [1.0, 2.0], "n_targets": 1, "nodes_missing_value_tracks_true": [1, 0, 0]}
    assert regressor(attrs, f32([np.nan], [3.0])).ravel().tolist() == [1, 2]


def _two_stumps() -> dict[str, Any]:
    """Tree 0 splits feature 0 at 0.5, tree 1 splits feature 1 at 0; leaves weigh targets 0 and 1."""
    return {
        "nodes_treeids": [0, 0, 0, 1, 1, 1], "nodes_nodeids": [0, 1, 2, 0, 1, 2],
        "nodes_featureids": [0, 0, 0, 1, 0, 0], "nodes_modes": ["BRANCH_LEQ", "LEAF", "LEAF"] * 2,
        "nodes_values": [0.5, 0, 0, 0.0, 0, 0], "nodes_truenodeids": [1, 0, 0, 1, 0, 0],
        "nodes_falsenodeids": [2, 0, 0, 2, 0, 0],
        # tree 0: leaf 1 -> (t0: 1), leaf 2 -> (t0: 3, t1: 10); tree 1: leaf 1 -> (t0: 5), leaf 2 -> (t1: -4)
        "target_treeids": [0, 0, 0, 1, 1], "target_nodeids": [1, 2, 2, 1, 2], "target_ids": [0, 0, 1, 0, 1],
        "target_weights": [1.0, 3.0, 10.0, 5.0, -4.0], "n_targets": 2,
    }


@pytest.mark.parametrize(
    "function,expected",
    [
        # rows: (0, -1) reaches leaves (1, 1); (1, 1) reaches (2, 2); (0, 1) reaches (1, 2)
        ("SUM", [[6, 0], [3, 6], [1, -4]]),
        ("AVERAGE", [[3, 0], [1.5, 3], [0.5, -2]]),
        ("MIN", [[1, 0], [3, -4], [1, -4]]),  # a target no reached leaf weighs is 0
        ("MAX", [[5, 0], [3, 10], [1, -4]]),
    ],
)
def test_tree_aggregate_functions(function: str, expected: list[list[float]]) -> None:
    attrs = {**_two_stumps(), "aggregate_function": function}
    assert regressor(attrs, f32([0, -1], [1, 1], [0, 1])).tolist() == expected


def test_tree_base_values_and_transform() -> None:
    attrs = {**_two_stumps(), "base_values": [0.5, -1.0], "post_transform": "SOFTMAX"}
    y = regressor(attrs, f32([0, -1], [1, 1]))
    raw = np.array([[6.5, -1.0], [3.5, 5.0]])
    want = np.exp(raw - raw.max(1, keepdims=True))
    np.testing.assert_allclose(y, want / want.sum(1, keepdims=True), rtol=1e-6)


def test_tree_versions_agree_and_as_tensor_attributes() -> None:
    attrs = _two_stumps()
    x = f32([0, -1], [1, 1], [0, 1])
    y1 = regressor(attrs, x, opset=1)
    y5 = regressor(attrs, x, opset=5)
    tensors = {k: v for k, v in attrs.items() if k not in ("nodes_values", "target_weights")}
    tensors["nodes_values_as_tensor"] = helper.make_tensor("v", TensorProto.DOUBLE, (6,), attrs["nodes_values"])
    tensors["target_weights_as_tensor"] = helper.make_tensor("w", TensorProto.DOUBLE, (5,), attrs["target_weights"])
    y3 = regressor(tensors, x, opset=3)
    assert y1.tolist() == y3.tolist() == y5.tolist() == [[6, 0], [3, 6], [1, -4]]


def test_tree_ids_need_not_start_at_zero_and_trees_sum_in_order() -> None:
    # the root is the node no other node branches to (node 7 here, listed last)
    attrs = {
        "nodes_treeids": [4, 4, 4], "nodes_nodeids": [8, 9, 7], "nodes_featureids": [0, 0, 0],
        "nodes_modes": ["LEAF", "LEAF", "BRANCH_GT"], "nodes_values": [0, 0, 2.0],
        "nodes_truenodeids": [0, 0, 8], "nodes_falsenodeids": [0, 0, 9],
        "target_treeids": [4, 4], "target_nodeids": [8, 9], "target_ids": [0, 0], "target_weights": [1.0, -1.0],
    }
    assert regressor(attrs, f32([3], [1])).ravel().tolist() == [1, -1]


def test_tree_refusals() -> None:
    cyclic = {**STUMP, "nodes_modes": ["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"], "nodes_truenodeids": [1, 0, 0],
              "nodes_falsenodeids": [2, 0, 0], "target_treeids": [0], "target_nodeids": [2], "target_ids": [0],
              "target_weights": [1.0]}
    with pytest.raises(SonnxError, match=r"no root|cycle"):
        regressor(cyclic, f32([0.0]))
    dangling = {**STUMP, "nodes_truenodeids": [5, 0, 0], "target_treeids": [0], "target_nodeids": [2],
                "target_ids": [0], "target_weights": [1.0]}
    with pytest.raises(SonnxError, match="node 5 of tree 0"):
        regressor(dangling, f32([0.0]))
    wide = {**STUMP, "nodes_featureids": [3, 0, 0], "target_treeids": [0], "target_nodeids": [2], "target_ids": [0],
            "target_weights": [1.0]}
    with pytest.raises(SonnxError, match="feature 3"):
        regressor(wide, f32([0.0]))


def test_deep_tree_walks_one_level_per_step() -> None:
    # a chain of 60 LEQ nodes on feature 0 with thresholds 0..59: x goes down the false side until x <= k
    depth = 60
    ids = list(range(depth + 1 + depth))  # interior 0..59, leaves 60..119 (leaf 60+k for node k), one last leaf
    modes = ["BRANCH_LEQ"] * depth + ["LEAF"] * (depth + 1)
    true_ids = [depth + k for k in range(depth)] + [0] * (depth + 1)
    false_ids = [k + 1 for k in range(depth - 1)] + [2 * depth] + [0] * (depth + 1)
    attrs = {
        "nodes_treeids": [0] * len(ids), "nodes_nodeids": ids, "nodes_featureids": [0] * len(ids),
        "nodes_modes": modes, "nodes_values": [float(k) for k in range(depth)] + [0.0] * (depth + 1),
        "nodes_truenodeids": true_ids, "nodes_falsenodeids": false_ids,
        "target_treeids": [0] * (depth + 1), "target_nodeids": list(range(depth, 2 * depth + 1)),
        "target_ids": [0] * (depth + 1), "target_weights": [float(k) for k in range(depth + 1)],
    }
    y = regressor(attrs, f32([-3], [0.5], [41.0], [100]))
    assert y.ravel().tolist() == [0, 1, 41, 60]


def classifier(attrs: dict[str, Any], x: np.ndarray, strings: bool = False, opset: int = 3) -> list[np.ndarray]:
    return run_node("TreeEnsembleClassifier", [x], [STR if strings else I64, F32], attrs, opset=opset)


def _class_stump(weights: dict[int, list[tuple[int, float]]]) -> dict[str, Any]:
    attrs: dict[str, Any] = {**STUMP, "class_treeids": [], "class_nodeids": [], "class_ids": [], "class_weights": []}
    for leaf, pairs in weights.items():
        for cls, w in pairs:
            attrs["class_treeids"].append(0)
            attrs["class_nodeids"].append(leaf)
            attrs["class_ids"].append(cls)
            attrs["class_weights"].append(w)
    return attrs


def test_tree_classifier_multiclass() -> None:
    attrs = {**_class_stump({1: [(0, 0.2), (1, 0.5), (2, 0.3)], 2: [(0, 0.6), (2, 0.6)]}),
             "classlabels_strings": ["a", "b", "c"]}
    label, z = classifier(attrs, f32([0.0], [1.0]), strings=True)
    assert label.tolist() == ["b", "a"]  # the first of equal scores wins
    assert z.tolist() == [[pytest.approx(0.2), 0.5, pytest.approx(0.3)], [pytest.approx(0.6), 0, pytest.approx(0.6)]]
    # only the classes that received a vote compete: -0.3 beats the unvoted 0
    neg = {**_class_stump({1: [(0, -0.3), (1, -0.5)], 2: [(0, -0.8), (1, -0.1)]}), "classlabels_int64s": [4, 5, 6]}
    label, _ = classifier(neg, f32([0.0], [1.0]))
    assert label.tolist() == [4, 5]


def test_tree_classifier_binary_one_score_conventions() -> None:
    x = f32([0.0], [1.0])
    # skl2onnx's random forest: one weight per leaf, class id 0, the probability of the second class
    rf = {**_class_stump({1: [(0, 0.3)], 2: [(0, 0.8)]}), "classlabels_int64s": [10, 20]}
    label, z = classifier(rf, x)
    assert label.tolist() == [10, 20] and z.tolist() == [[pytest.approx(0.7), pytest.approx(0.3)],
                                                         [pytest.approx(0.2), pytest.approx(0.8)]]
    tie = {**_class_stump({1: [(0, 0.5)], 2: [(0, 0.5)]}), "classlabels_int64s": [10, 20]}
    assert classifier(tie, x)[0].tolist() == [10, 10]  # 0.5 is not above 0.5
    # gradient boosting: a margin (mixed signs), one base value, LOGISTIC
    gb = {**_class_stump({1: [(0, -0.3)], 2: [(0, 0.8)]}), "classlabels_int64s": [0, 1], "base_values": [0.5],
          "post_transform": "LOGISTIC"}
    label, z = classifier(gb, x)
    s = np.array([0.2, 1.3])
    assert label.tolist() == [1, 1]
    np.testing.assert_allclose(z, np.stack([1 / (1 + np.exp(s)), 1 / (1 + np.exp(-s))], axis=1), rtol=1e-6)
    gb_raw = {**gb, "post_transform": "NONE", "base_values": [-0.5]}
    label, z = classifier(gb_raw, x)
    assert label.tolist() == [0, 1] and z.tolist() == [[pytest.approx(0.8), pytest.approx(-0.8)],
                                                       [pytest.approx(-0.3), pytest.approx(0.3)]]


def test_tree_classifier_binary_weighing_both_classes_takes_the_top_score() -> None:
    attrs = {**_class_stump({1: [(0, 0.7), (1, 0.3)], 2: [(0, 0.2), (1, 0.8)]}), "classlabels_int64s": [4, 5]}
    label, z = classifier(attrs, f32([0.0], [1.0]))
    assert label.tolist() == [4, 5] and z.tolist() == [[pytest.approx(0.7), pytest.approx(0.3)],
                                                       [pytest.approx(0.2), pytest.approx(0.8)]]


def _tree_ensemble_attrs(**over: Any) -> dict[str, Any]:
    """The membership example: node 0 (x <= 11) -> node 1 (x in {1, 3, 8}) / leaf 2; node 1 -> leaf 0 / node 2;
    node 2 (x in {12, 7}) -> leaf 1 / leaf 3. Leaves weigh targets 0..3 by 1, 10, 1000, 100."""
    attrs: dict[str, Any] = {
        "n_targets": 4, "tree_roots": [0],
        "nodes_modes": helper.make_tensor("m", TensorProto.UINT8, (3,), [0, 6, 6]),
        "nodes_featureids": [0, 0, 0],
        "nodes_splits": helper.make_tensor("s", TensorProto.FLOAT, (3,), [11.0, 0.0, 0.0]),
        "nodes_truenodeids": [1, 0, 1], "nodes_trueleafs": [0, 1, 1],
        "nodes_falsenodeids": [2, 2, 3], "nodes_falseleafs": [1, 0, 1],
        "membership_values": helper.make_tensor("mv", TensorProto.FLOAT, (6,), [1, 3, 8, np.nan, 12, 7]),
        "leaf_targetids": [0, 1, 2, 3],
        "leaf_weights": helper.make_tensor("w", TensorProto.FLOAT, (4,), [1, 10, 1000, 100]),
    }
    attrs.update(over)
    return attrs


def test_tree_ensemble_membership_and_missing() -> None:
    x = f32([3.0], [7.0], [12.0], [np.nan], [5.0])
    (y,) = run_node("TreeEnsemble", [x], [F32], _tree_ensemble_attrs(), opset=5)
    # 3 in the first set: leaf 0; 7: not in it, in the second: leaf 1; 12 > 11: leaf 2; NaN fails x <= 11:
    # leaf 2; 5: in neither set: leaf 3
    assert y.tolist() == [[1, 0, 0, 0], [0, 10, 0, 0], [0, 0, 1000, 0], [0, 0, 1000, 0], [0, 0, 0, 100]]
    (y,) = run_node("TreeEnsemble", [x], [F32], _tree_ensemble_attrs(nodes_missing_value_tracks_true=[1, 0, 0]),
                    opset=5)
    assert y[3].tolist() == [0, 0, 0, 100]  # NaN now goes to node 1, then node 2, then leaf 3


def test_tree_ensemble_types_and_transform_codes() -> None:
    x16 = np.array([[3.0], [12.0]], np.float16)
    attrs = _tree_ensemble_attrs(
        nodes_splits=helper.make_tensor("s", TensorProto.FLOAT16, (3,), np.array([11, 0, 0], np.float16)),
        membership_values=helper.make_tensor("mv", TensorProto.FLOAT16, (6,),
                                             np.array([1, 3, 8, np.nan, 12, 7], np.float16)),
        leaf_weights=helper.make_tensor("w", TensorProto.FLOAT16, (4,), np.array([1, 10, 1000, 100], np.float16)),
    )
    (y,) = run_node("TreeEnsemble", [x16], [TensorProto.FLOAT16], attrs, opset=5)
    assert y.dtype == np.float16 and y.tolist() == [[1, 0, 0, 0], [0, 0, 1000, 0]]
    # post_transform 2 is LOGISTIC (1 is SOFTMAX), aggregate_function 0 is AVERAGE
    x = f32([3.0])
    (y,) = run_node("TreeEnsemble", [x], [F32], _tree_ensemble_attrs(post_transform=2), opset=5)
    np.testing.assert_allclose(y, [[1 / (1 + math.exp(-1)), 0.5, 0.5, 0.5]], rtol=1e-6)
    (y,) = run_node("TreeEnsemble", [x], [F32], _tree_ensemble_attrs(post_transform=1), opset=5)
    assert y.sum() == pytest.approx(1.0)


def test_tree_ensemble_single_leaf_tree() -> None:
    # a tree that is one leaf: its root's two branches reach the same leaf
    attrs = {
        "n_targets": 1, "tree_roots": [0], "nodes_modes": helper.make_tensor("m", TensorProto.UINT8, (1,), [0]),
        "nodes_featureids": [0], "nodes_splits": helper.make_tensor("s", TensorProto.DOUBLE, (1,), [0.0]),
        "nodes_truenodeids": [0], "nodes_trueleafs": [1], "nodes_falsenodeids": [0], "nodes_falseleafs": [1],
        "leaf_targetids": [0], "leaf_weights": helper.make_tensor("w", TensorProto.DOUBLE, (1,), [2.5]),
    }
    (y,) = run_node("TreeEnsemble", [np.array([[-1.0], [1.0]])], [TensorProto.DOUBLE], attrs, opset=5)
    assert y.dtype == np.float64 and y.tolist() == [[2.5], [2.5]]


# -------------------------------------------------------------------------------------------------- SVM


def test_svm_regressor() -> None:
    x = f32([1, 0], [0, 2])
    # two support vectors (1, 0) and (0, 1), linear kernel: y = 2 x.(1,0) - x.(0,1) + 0.5
    attrs = {"support_vectors": [1, 0, 0, 1.0], "coefficients": [2.0, -1.0], "n_supports": 2, "rho": [0.5],
             "kernel_type": "LINEAR"}
    (y,) = run_node("SVMRegressor", [x], [F32], attrs)
    assert y.tolist() == [[2.5], [-1.5]]
    (y,) = run_node("SVMRegressor", [x], [F32], {**attrs, "one_class": 1})
    assert y.tolist() == [[1], [-1]]
    # RBF, gamma 0.5: exp(-0.5 |x - v|^2)
    (y,) = run_node("SVMRegressor", [x], [F32], {**attrs, "kernel_type": "RBF", "kernel_params": [0.5, 0, 0]})
    want = [2 * 1 - math.exp(-1) + 0.5, 2 * math.exp(-2.5) - math.exp(-0.5) + 0.5]
    np.testing.assert_allclose(y.ravel(), want, rtol=1e-6)
    # no support vectors: a linear SVM, y = x.w + rho
    (y,) = run_node("SVMRegressor", [x], [F32], {"coefficients": [1.0, 3.0], "rho": [-1.0], "kernel_type": "RBF"})
    assert y.tolist() == [[0], [5]]


def _svc(**over: Any) -> dict[str, Any]:
    """Three classes, one support vector each: (1, 0), (0, 1), (-1, -1); linear kernel."""
    attrs: dict[str, Any] = {
        "vectors_per_class": [1, 1, 1], "support_vectors": [1, 0, 0, 1, -1, -1.0],
        # coefficients[0] is used by classes 1 and 2 against 0; coefficients[1] by class 0 and 1 against 2...
        "coefficients": [1.0, -1.0, -1.0, 1.0, 1.0, -1.0], "rho": [0.0, 0.5, -0.5],
        "kernel_type": "LINEAR", "classlabels_ints": [7, 8, 9],
    }
    attrs.update(over)
    return attrs


def _svc_decisions(x: np.ndarray) -> np.ndarray:
    """d_01, d_02, d_12 for _svc by the operator's formula."""
    v = np.array([[1, 0], [0, 1], [-1, -1]], np.float64)
    coef = np.array([[1, -1, -1], [1, 1, -1]], np.float64)
    rho = [0.0, 0.5, -0.5]
    k = x.astype(np.float64) @ v.T
    out = []
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        out.append(coef[j - 1, i] * k[:, i] + coef[i, j] * k[:, j] + rho[p])
    return np.stack(out, axis=1)


def test_svm_classifier_votes_and_decisions() -> None:
    x = f32([2, 0], [0, 2], [-2, -2], [0, 0])
    label, z = run_node("SVMClassifier", [x], [I64, F32], _svc())
    d = _svc_decisions(x)
    np.testing.assert_allclose(z, d, rtol=1e-6)
    votes = np.zeros((4, 3), int)
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        winner = np.where(d[:, p] > 0, i, j)
        votes[np.arange(4), winner] += 1
    assert label.tolist() == [7 + int(np.argmax(v)) for v in votes]


def test_svm_classifier_probabilities() -> None:
    x = f32([2, 0], [0, 2], [0.1, -0.2])
    a, b = [-2.0, -1.0, -1.5], [0.1, 0.0, -0.2]
    label, z = run_node("SVMClassifier", [x], [I64, F32], _svc(prob_a=a, prob_b=b))
    assert z.shape == (3, 3)
    np.testing.assert_allclose(z.sum(axis=1), 1, rtol=1e-6)
    # the coupled probabilities rank the classes as the pairwise probabilities do here
    d = _svc_decisions(x)
    r = 1 / (1 + np.exp(d * a + b))  # P(i | i or j) for (0,1), (0,2), (1,2)
    assert np.argmax(z[0]) == 0 and r[0, 0] > 0.5 and r[0, 1] > 0.5
    assert label.tolist() == run_node("SVMClassifier", [x], [I64, F32], _svc())[0].tolist()  # still the vote
    # two classes: [-d, d] without probabilities
    two = {"vectors_per_class": [1, 1], "support_vectors": [1, 0, 0, 1.0], "coefficients": [1.0, -1.0],
           "rho": [0.25], "kernel_type": "LINEAR", "classlabels_ints": [0, 1]}
    label, z = run_node("SVMClassifier", [x], [I64, F32], two)
    dd = x[:, 0] - x[:, 1] + 0.25  # 1*K(x,v0) - 1*K(x,v1) + rho
    assert label.tolist() == [int(v <= 0) for v in dd]
    np.testing.assert_allclose(z, np.stack([-dd, dd], axis=1), rtol=1e-6)
    label, z = run_node("SVMClassifier", [x], [I64, F32], {**two, "prob_a": [-1.0], "prob_b": [0.0]})
    np.testing.assert_allclose(z.sum(axis=1), 1, rtol=1e-6)
    assert ((z[:, 0] > 0.5) == (dd > 0)).all()


def test_svm_classifier_linear_mode() -> None:
    x = f32([1, 2], [-1, 0])
    attrs = {"coefficients": [1, 0, 0, 1, -1, -1.0], "rho": [0.0, 0.0, 5.0], "kernel_type": "LINEAR",
             "classlabels_ints": [1, 2, 3]}
    label, z = run_node("SVMClassifier", [x], [I64, F32], attrs)
    assert z.tolist() == [[1, 2, 2], [-1, 0, 6]] and label.tolist() == [2, 3]


# --------------------------------------------------------------- skl2onnx-shaped models against onnxruntime


def _ort(model: onnx.ModelProto, *inputs: np.ndarray) -> list[Any]:
    ort = peers.onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return list(session.run(None, {f"x{k}": x for k, x in enumerate(inputs)}))


def _forest(rng: np.random.Generator, n_trees: int, n_features: int, n_outputs: int, prefix: str,
            positive: bool) -> dict[str, Any]:
    """Random trees as skl2onnx writes them: node ids from 0 per tree, BRANCH_LEQ, float thresholds, a weight per
    output on every leaf."""
    attrs: dict[str, list[Any]] = {k: [] for k in (
        "nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values", "nodes_truenodeids",
        "nodes_falsenodeids", f"{prefix}_treeids", f"{prefix}_nodeids", f"{prefix}_ids", f"{prefix}_weights")}
    for t in range(n_trees):
        # a random binary tree in breadth-first order: node k's children are the next free ids
        count, k, frontier = 1, 0, [0]
        while frontier:
            k = frontier.pop(0)
            leaf = count > 40 or (k > 0 and rng.random() < 0.35)
            attrs["nodes_treeids"].append(t)
            attrs["nodes_nodeids"].append(k)
            if leaf:
                attrs["nodes_featureids"].append(0)
                attrs["nodes_modes"].append("LEAF")
                attrs["nodes_values"].append(0.0)
                attrs["nodes_truenodeids"].append(0)
                attrs["nodes_falsenodeids"].append(0)
                for o in range(n_outputs):
                    w = rng.random() if positive else rng.normal()
                    attrs[f"{prefix}_treeids"].append(t)
                    attrs[f"{prefix}_nodeids"].append(k)
                    attrs[f"{prefix}_ids"].append(o)
                    attrs[f"{prefix}_weights"].append(float(np.float32(w / n_trees)))
            else:
                attrs["nodes_featureids"].append(int(rng.integers(0, n_features)))
                attrs["nodes_modes"].append("BRANCH_LEQ")
                attrs["nodes_values"].append(float(np.float32(rng.normal())))
                attrs["nodes_truenodeids"].append(count)
                attrs["nodes_falsenodeids"].append(count + 1)
                frontier += [count, count + 1]
                count += 2
    return attrs


@pytest.mark.parametrize("n_classes", [2, 3])
def test_random_forest_classifier_is_exactly_onnxruntimes(n_classes: int) -> None:
    rng = np.random.default_rng(n_classes)
    attrs = _forest(rng, 30, 5, 1 if n_classes == 2 else n_classes, "class", positive=True)
    attrs["classlabels_int64s"] = list(range(n_classes))
    x = rng.normal(size=(200, 5)).astype(np.float32)
    model = ml_model("TreeEnsembleClassifier", [x], [_tensor_type(I64), _tensor_type(F32)], attrs, opset=1)
    label, z = run(model, x)
    want_label, want_z = _ort(model, x)
    assert np.array_equal(label, want_label)
    assert np.array_equal(z, want_z)


def test_gradient_boosting_classifier_is_onnxruntimes() -> None:
    rng = np.random.default_rng(5)
    attrs = _forest(rng, 20, 4, 1, "class", positive=False)
    attrs.update(classlabels_strings=["neg", "pos"], base_values=[0.3], post_transform="LOGISTIC")
    x = rng.normal(size=(200, 4)).astype(np.float32)
    model = ml_model("TreeEnsembleClassifier", [x], [_tensor_type(STR), _tensor_type(F32)], attrs, opset=3)
    label, z = run(model, x)
    want_label, want_z = _ort(model, x)
    assert label.tolist() == want_label.tolist()
    np.testing.assert_allclose(z, want_z, rtol=0, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_forest_regressor_is_exactly_onnxruntimes(dtype: Any) -> None:
    rng = np.random.default_rng(11)
    attrs = _forest(rng, 40, 6, 2, "target", positive=False)
    attrs["n_targets"] = 2
    x = rng.normal(size=(300, 6)).astype(dtype)
    model = ml_model("TreeEnsembleRegressor", [x], [_tensor_type(F32)], attrs, opset=3)
    assert np.array_equal(run(model, x)[0], _ort(model, x)[0])


def test_scaler_normalizer_linear_classifier_are_onnxruntimes() -> None:
    rng = np.random.default_rng(2)
    x = (rng.normal(size=(300, 13)) * 4).astype(np.float32)
    scaler = ml_model("Scaler", [x], [_tensor_type(F32)], {
        "offset": rng.normal(size=13).astype(np.float32).tolist(),
        "scale": (1 / rng.uniform(0.5, 3, size=13)).astype(np.float32).tolist()})
    assert np.array_equal(run(scaler, x)[0], _ort(scaler, x)[0])
    for norm in ("MAX", "L1", "L2"):
        normalizer = ml_model("Normalizer", [x], [_tensor_type(F32)], {"norm": norm})
        assert np.array_equal(run(normalizer, x)[0], _ort(normalizer, x)[0]), norm
    w = rng.normal(size=(3, 13)).astype(np.float32)
    for transform in ("NONE", "SOFTMAX", "LOGISTIC"):
        lc = ml_model("LinearClassifier", [x], [_tensor_type(I64), _tensor_type(F32)], {
            "coefficients": w.ravel().tolist(), "intercepts": [0.5, -0.25, 0.0], "classlabels_ints": [0, 1, 2],
            "post_transform": transform})
        label, z = run(lc, x)
        want_label, want_z = _ort(lc, x)
        assert np.array_equal(label, want_label)
        # onnxruntime's vectorised logistic is an approximation (absolute error about 1e-7)
        np.testing.assert_allclose(z, want_z, rtol=1e-6, atol=3e-7)
    indices = np.array([4, 0, 12], np.int64)
    afe = ml_model("ArrayFeatureExtractor", [x, indices], [_tensor_type(F32)], {})
    assert np.array_equal(run(afe, x, indices)[0], _ort(afe, x, indices)[0])
