"""Input values from files of every kind, drawn values of the non-tensor kinds, and where inputs came from."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from sonnx.base.errors import ExecutionError, InputError, SonnxError, UsageError
from sonnx.execution.executor import execute
from sonnx.execution.inputs import InputSource, read_inputs
from sonnx.execution.inputs.json_file import value_of
from sonnx.execution.signature import InputValueError
from sonnx.loader import load_model
from sonnx.loader.writer import to_proto
from sonnx.model.graph import TensorType
from sonnx.ops.values import EMPTY, numpy_dtype
from tests.inputs import models


def _json(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("words", [np.array(["dog", "cat", "bird"]), np.array([b"dog", b"cat", b"bird"])])
def test_npz_text_is_taken_for_a_string_input(tmp_path: Path, words: np.ndarray) -> None:
    model = load_model(str(models.label_encoder(tmp_path / "le.onnx")))
    np.savez(tmp_path / "in.npz", x=words)
    got = read_inputs(model, str(tmp_path / "in.npz"), [], 0)
    x = got.values["x"]
    assert x.dtype == object and all(type(w) is str for w in x.flat) and list(x) == ["dog", "cat", "bird"]
    np.testing.assert_array_equal(execute(model, got.values)["y"], np.array([1, 0, -1], np.int64))


def test_npz_text_for_a_declared_float_tensor_is_refused(tmp_path: Path) -> None:
    onnx_model = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Relu", ["x"], ["y"])], "r",
            [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
            [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])],
        ),
        opset_imports=[onnx.helper.make_opsetid("", 17)],
    )
    onnx_model.ir_version = 8
    onnx.save(onnx_model, tmp_path / "r.onnx")
    model = load_model(str(tmp_path / "r.onnx"))
    np.savez(tmp_path / "in.npz", x=np.array(["a", "b"]))
    feeds = read_inputs(model, str(tmp_path / "in.npz"), [], 0).values
    with pytest.raises(InputValueError, match="declared FLOAT") as info:
        execute(model, feeds)
    assert "\n" not in info.value.one_line() and "<U1" in str(info.value)


def test_json_gives_every_kind_typed_by_the_declaration(tmp_path: Path) -> None:
    dv = load_model(str(models.dict_vectorizer(tmp_path / "dv.onnx")))
    got = read_inputs(dv, _json(tmp_path / "dv.json", {"features": {"map": {"a": 1.5, "c": -2, "zz": 3}}}), [], 0)
    features = got.values["features"]
    assert features == {"a": 1.5, "c": -2.0, "zz": 3.0} and all(type(v) is np.float32 for v in features.values())
    np.testing.assert_array_equal(execute(dv, got.values)["variable"], np.array([[1.5, 0, -2]], np.float32))

    seq = load_model(str(models.sequence_concat(tmp_path / "s.onnx")))
    element = {"data": [[1, 2, 3], [4, 5, 6]]}  # dtype from the declaration
    got = read_inputs(seq, _json(tmp_path / "s.json", {"s": {"sequence": [element, element]}}), [], 0)
    assert [v.dtype for v in got.values["s"]] == [np.float32, np.float32]
    assert execute(seq, got.values)["y"].shape == (4, 3)

    opt = load_model(str(models.optional_has(tmp_path / "o.onnx")))
    empty = read_inputs(opt, _json(tmp_path / "e.json", {"o": {"optional": None}}), [], 0).values
    assert empty["o"] is EMPTY and not execute(opt, empty)["y"]
    held = read_inputs(opt, _json(tmp_path / "h.json", {"o": {"optional": {"data": [1, "NaN"], "shape": [2]}}}), [], 0)
    assert execute(opt, held.values)["y"] and np.isnan(held.values["o"][1])

    le = load_model(str(models.label_encoder(tmp_path / "le.onnx")))
    got = read_inputs(le, _json(tmp_path / "le.json", {"x": {"data": ["fish"], "dtype": "string"}}), [], 0)
    np.testing.assert_array_equal(execute(le, got.values)["y"], np.array([2], np.int64))


def test_json_map_with_integer_keys(tmp_path: Path) -> None:
    cm = load_model(str(models.cast_map(tmp_path / "cm.onnx")))
    got = read_inputs(cm, _json(tmp_path / "cm.json", {"m": {"map": {"3": 4, "1": 2.5}}}), [], 0).values
    assert got["m"] == {3: 4.0, 1: 2.5} and all(type(k) is int for k in got["m"])


@pytest.mark.parametrize(
    "data,message",
    [
        ({"features": {"data": [1.0]}}, "a map is declared"),
        ({"features": {"map": [1, 2]}}, "a map is given as a JSON object"),
        ({"features": {"map": {"a": "x"}}}, "takes numbers"),
        ({"features": {"map": {"a": True}}}, "takes numbers"),
        ({"nope": {"data": [1]}}, "not graph inputs of the model: nope"),
        ([1, 2], "a JSON object keyed by graph-input name"),
    ],
)
def test_json_map_file_refusals(tmp_path: Path, data: object, message: str) -> None:
    dv = load_model(str(models.dict_vectorizer(tmp_path / "dv.onnx")))
    with pytest.raises((InputError, UsageError), match=message) as info:
        read_inputs(dv, _json(tmp_path / "in.json", data), [], 0)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"s": {"sequence": [{"data": [[1, 2], [3]]}]}}', "ragged"),
        ('{"s": {"sequence": [{"data": [1, 2], "dtype": "int64"}]}}', "dtype INT64 is given, the model declares FLOAT"),
        ('{"s": {"sequence": [{"data": [1, 2, 3], "shape": [2, 3]}]}}', "holds 6 elements, data has 3"),
        ('{"s": {"sequence": [{"data": [1], "extra": 1}]}}', "a tensor is declared"),
        ('{"s": {"sequence": [{"data": [NaN]}]}}', "NaN is not JSON"),
        ('{"s": {"sequence": []}, "s": {"sequence": []}}', "appears twice"),
        ('{"s": {"optional": null}}', "a sequence is declared"),
        ('{"s": ' + "[" * 70 + "]" * 70 + "}", "nested deeper than"),
    ],
)
def test_json_tensor_file_refusals(tmp_path: Path, text: str, message: str) -> None:
    seq = load_model(str(models.sequence_concat(tmp_path / "s.onnx")))
    (tmp_path / "in.json").write_text(text)
    with pytest.raises(InputError, match=message) as info:
        read_inputs(seq, str(tmp_path / "in.json"), [], 0)
    assert "\n" not in str(info.value)


def test_json_integers_are_checked_against_the_type(tmp_path: Path) -> None:
    cm = load_model(str(models.cast_map(tmp_path / "cm.onnx")))
    with pytest.raises(InputError, match="outside the range of INT64"):
        read_inputs(cm, _json(tmp_path / "cm.json", {"m": {"map": {str(2**63): 1.0}}}), [], 0)
    with pytest.raises(InputError, match="is not an integer"):
        read_inputs(cm, _json(tmp_path / "cm.json", {"m": {"map": {"1.5": 1.0}}}), [], 0)


def test_a_map_read_by_a_dict_vectorizer_is_drawn_from_its_vocabulary(tmp_path: Path) -> None:
    dv = load_model(str(models.dict_vectorizer(tmp_path / "dv.onnx")))
    seen: set[str] = set()
    for seed in range(12):
        got = read_inputs(dv, None, [], seed)
        features = got.values["features"]
        assert features and set(features) <= set(models.VOCABULARY)
        assert all(type(v) is np.float32 for v in features.values())
        assert got.source == InputSource(seed, ("features",))
        seen |= set(features)
        assert execute(dv, got.values)["variable"].shape == (1, 3)
    assert seen == set(models.VOCABULARY)
    assert read_inputs(dv, None, [], 5).values == read_inputs(dv, None, [], 5).values


def test_sequences_and_optionals_are_drawn_present(tmp_path: Path) -> None:
    seq = load_model(str(models.sequence_concat(tmp_path / "s.onnx")))
    s = read_inputs(seq, None, [], 3).values["s"]
    assert isinstance(s, list) and len(s) == 2 and all(v.shape == (2, 3) and v.dtype == np.float32 for v in s)
    opt = load_model(str(models.optional_has(tmp_path / "o.onnx")))
    o = read_inputs(opt, None, [], 3).values["o"]
    assert isinstance(o, np.ndarray) and o.shape == (2,)


def test_a_map_nothing_names_is_not_guessed(tmp_path: Path) -> None:
    cm = load_model(str(models.cast_map(tmp_path / "cm.onnx")))
    with pytest.raises(ExecutionError, match=r"keys the model does not name.*--inputs FILE\.json") as info:
        read_inputs(cm, None, [], 0)
    assert isinstance(info.value, SonnxError) and "\n" not in str(info.value)


def test_the_source_names_the_file_its_digest_and_what_was_drawn(tmp_path: Path) -> None:
    le = load_model(str(models.label_encoder(tmp_path / "le.onnx")))
    np.savez(tmp_path / "in.npz", x=np.array(["dog"]))
    digest = hashlib.sha256((tmp_path / "in.npz").read_bytes()).hexdigest()
    source = read_inputs(le, str(tmp_path / "in.npz"), [], 7).source
    assert source.describe() == f"inputs from {tmp_path / 'in.npz'}, sha256 {digest[:16]}"
    assert "seed" not in source.describe()
    assert source.details() == {
        "inputs": {"files": [{"file": str(tmp_path / "in.npz"), "sha256": digest}], "given": ["x"], "drawn": [],
                   "drawn_with_seed": None}
    }
    drawn = read_inputs(le, None, [], 7).source
    assert drawn.describe() == "seed 7" and drawn.details() == {"input_seed": 7}
    partly = InputSource(7, ("mask",), ((str(tmp_path / "in.npz"), digest),), ("x",))
    assert partly.describe().endswith("; mask drawn with seed 7") and partly.to_json()["drawn_with_seed"] == 7


def test_a_single_json_value_with_input(tmp_path: Path) -> None:
    dv = load_model(str(models.dict_vectorizer(tmp_path / "dv.onnx")))
    path = _json(tmp_path / "f.json", {"map": {"b": 2}})
    got = read_inputs(dv, None, [f"features={path}"], 0)
    assert got.values["features"] == {"b": 2.0} and got.source.given == ("features",)


@pytest.mark.parametrize("make", [models.dict_vectorizer, models.cast_map, models.sequence_concat, models.optional_has])
def test_the_writer_writes_map_sequence_and_optional_types(tmp_path: Path, make: object) -> None:
    model = load_model(str(make(tmp_path / "m.onnx")))  # type: ignore[operator]
    proto = to_proto(model)
    onnx.checker.check_model(proto, full_check=True)
    onnx.save(proto, tmp_path / "again.onnx")
    again = load_model(str(tmp_path / "again.onnx"))
    name = model.graph.inputs[0]
    assert again.graph.tensor(name).type == model.graph.tensor(name).type


@pytest.mark.parametrize(
    "elem,data,message",
    [
        (onnx.TensorProto.INT4, [8], "outside the range of INT4 \\[-8, 7\\]"),
        (onnx.TensorProto.UINT4, [-1], "outside the range of UINT4"),
        (onnx.TensorProto.INT2, [2], "outside the range of INT2"),
        (onnx.TensorProto.UINT8, [256], "outside the range of UINT8"),
        (onnx.TensorProto.INT4, [1.0], "takes JSON integers only"),
        (onnx.TensorProto.BOOL, [1], "takes true and false only"),
        (onnx.TensorProto.FLOAT, [True], "takes numbers"),
        (onnx.TensorProto.FLOAT, [10**400], "too large for a floating-point number"),
        (onnx.TensorProto.COMPLEX64, [1.0], "complex tensors cannot be given in JSON"),
    ],
)
def test_json_scalars_must_fit_their_element_type(elem: int, data: list[object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        value_of("in.json: input 'x'", TensorType("tensor", elem, (1,)), {"data": data})


def test_json_scalars_take_their_element_type() -> None:
    cases = [
        (onnx.TensorProto.INT4, [-8, 7], np.array([-8, 7]).astype(numpy_dtype(onnx.TensorProto.INT4))),
        (onnx.TensorProto.UINT64, [2**64 - 1], np.array([2**64 - 1], np.uint64)),
        (onnx.TensorProto.FLOAT16, ["-Infinity", 0.1], np.array([-np.inf, 0.1], np.float16)),
        (onnx.TensorProto.DOUBLE, [0.1], np.array([0.1], np.float64)),
    ]
    for elem, data, want in cases:
        spec = {"data": data, "dtype": onnx.TensorProto.DataType.Name(elem)}
        got = value_of("x", TensorType("tensor", elem, None), spec)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (elem, got)
