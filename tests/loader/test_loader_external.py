"""External tensor data: happy path, lazy reading, and the path-safety checks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from sonnx.base.errors import ExternalDataError, UnsafePathError
from sonnx.loader import external, load_model
from tests.common.builders import fvi, make_model

W = np.arange(12, dtype=np.float32).reshape(3, 4)
B = np.array([7, -7], dtype=np.int64)


def _model() -> onnx.ModelProto:
    inits = [numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Identity", ["b"], ["z"])]
    return make_model(nodes, [fvi("x", [1, 3])], [fvi("y", [1, 4]), fvi("z", [2], onnx.TensorProto.INT64)],
                      initializers=inits)


def _save_external(folder: Path, name: str = "m.onnx", location: str = "w.bin") -> Path:
    path = folder / name
    onnx.save_model(_model(), str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=location, size_threshold=0)
    return path


def _set_location(path: Path, tensor: str, location: str, drop: tuple[str, ...] = ()) -> None:
    """Rewrite one tensor's external-data entries in a saved model (without touching the data file)."""
    m = onnx.load_model(str(path), load_external_data=False)
    for t in m.graph.initializer:
        if t.name == tensor:
            kept = [(e.key, e.value) for e in t.external_data if e.key not in drop]
            del t.external_data[:]
            for k, v in kept:
                t.external_data.add(key=k, value=location if k == "location" else v)
    path.write_bytes(m.SerializeToString())


def _set_entry(path: Path, tensor: str, key: str, value: str) -> None:
    """Set one external-data entry (``length``, ``offset``...) of one tensor in a saved model."""
    m = onnx.load_model(str(path), load_external_data=False)
    for t in m.graph.initializer:
        if t.name == tensor:
            entries = {e.key: e.value for e in t.external_data}
            entries[key] = value
            del t.external_data[:]
            for k, v in entries.items():
                t.external_data.add(key=k, value=v)
    path.write_bytes(m.SerializeToString())


def test_external_data_happy_path(tmp_path: Path) -> None:
    path = _save_external(tmp_path)
    for read_weights in (True, False):
        model = load_model(str(path), read_weights=read_weights)
        assert model.weights_loaded is read_weights
        w = model.graph.tensors["w"].initial_value
        b = model.graph.tensors["b"].initial_value
        assert w is not None and b is not None
        assert w.external is not None and b.external is not None
        assert w.external.path == os.path.realpath(tmp_path / "w.bin")
        assert w.external.length == W.nbytes and b.external.length == B.nbytes
        assert w.dims == (3, 4)
        np.testing.assert_array_equal(w.read(), W)
        np.testing.assert_array_equal(b.read(), B)


def test_read_weights_false_opens_no_data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _save_external(tmp_path)
    opened: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(external, "open", refuse, raising=False)
    model = load_model(str(path), read_weights=False)
    assert opened == [] and model.weights_loaded is False
    with pytest.raises(ExternalDataError, match="cannot be read"):
        load_model(str(path), read_weights=True)
    assert opened  # the check with read_weights=True does open the file


def test_truncated_data_without_length(tmp_path: Path) -> None:
    """Without a 'length' entry only the tensor's shape says how many bytes it needs."""
    path = _save_external(tmp_path)
    _set_location(path, "w", "w.bin", drop=("length",))
    _set_location(path, "b", "w.bin", drop=("length",))
    data = tmp_path / "w.bin"
    full = data.read_bytes()
    data.write_bytes(full[:-4])
    # the file's size says it is short: refused with or without reading weights (nothing is read)
    for read_weights in (False, True):
        with pytest.raises(ExternalDataError, match="needs 16"):
            load_model(str(path), read_weights=read_weights)
    # a value whose file shrinks after loading is refused when read
    data.write_bytes(full)
    model = load_model(str(path), read_weights=False)
    data.write_bytes(full[:-4])
    b = model.graph.tensors["b"].initial_value
    assert b is not None
    with pytest.raises(ExternalDataError, match="expected 16"):
        b.read()


def test_structure_only_checks_sizes_hard_links_and_digits_without_reading(tmp_path: Path) -> None:
    import os

    path = _save_external(tmp_path)
    _set_entry(path, "w", "length", "4")  # shorter than the tensor needs
    with pytest.raises(ExternalDataError, match="holds 4 bytes"):
        load_model(str(path), read_weights=False)
    path = _save_external(tmp_path)
    _set_entry(path, "w", "length", "\uff11\uff16")  # full-width "16"
    with pytest.raises(ExternalDataError, match="not a non-negative integer"):
        load_model(str(path), read_weights=False)
    path = _save_external(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.bin"
    os.link(tmp_path / "w.bin", outside)  # the same file, also outside the folder
    with pytest.raises(UnsafePathError, match="hard links"):
        load_model(str(path), read_weights=False)


def test_range_past_end_fails_in_both_modes(tmp_path: Path) -> None:
    path = _save_external(tmp_path)
    data = tmp_path / "w.bin"
    data.write_bytes(data.read_bytes()[:10])
    for read_weights in (True, False):
        with pytest.raises(ExternalDataError, match="past the end"):
            load_model(str(path), read_weights=read_weights)


def test_missing_data_file(tmp_path: Path) -> None:
    path = _save_external(tmp_path)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(ExternalDataError, match="does not exist") as info:
        load_model(str(path), read_weights=False)
    assert not isinstance(info.value, UnsafePathError)
    assert "\n" not in str(info.value)


def test_data_in_a_subfolder_and_a_symlink_inside_are_fine(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    path = _save_external(tmp_path, location="sub/w.bin")
    os.symlink(tmp_path / "sub" / "w.bin", tmp_path / "link.bin")
    _set_location(path, "w", "link.bin")
    model = load_model(str(path))
    w = model.graph.tensors["w"].initial_value
    assert w is not None and w.external is not None
    assert w.external.path == os.path.realpath(tmp_path / "sub" / "w.bin")
    np.testing.assert_array_equal(w.read(), W)


@pytest.mark.parametrize(
    "location, why",
    [
        ("/etc/passwd", "absolute"),
        ("../w.bin", "'..'"),
        ("sub/../../w.bin", "'..'"),
        ("..\\w.bin", "'..'"),
        ("C:\\w.bin", "drive"),
    ],
)
def test_unsafe_locations(tmp_path: Path, location: str, why: str) -> None:
    path = _save_external(tmp_path)
    _set_location(path, "w", location)
    for read_weights in (True, False):
        with pytest.raises(UnsafePathError, match=why) as info:
            load_model(str(path), read_weights=read_weights)
        assert "'w'" in str(info.value) and repr(location) in str(info.value)


def test_symlink_escaping_the_folder(tmp_path: Path) -> None:
    inner = tmp_path / "model"
    inner.mkdir()
    path = _save_external(inner)
    outside = tmp_path / "outside.bin"
    (inner / "w.bin").rename(outside)
    os.symlink(outside, inner / "w.bin")
    with pytest.raises(UnsafePathError, match="outside the model's folder"):
        load_model(str(path), read_weights=False)
    # A dangling link that points out is refused the same way, before 'missing'.
    outside.unlink()
    with pytest.raises(UnsafePathError):
        load_model(str(path), read_weights=False)


def test_folder_reached_through_a_symlink_is_fine(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    _save_external(real)
    os.symlink(real, tmp_path / "alias")
    model = load_model(str(tmp_path / "alias" / "m.onnx"))
    w = model.graph.tensors["w"].initial_value
    assert w is not None
    np.testing.assert_array_equal(w.read(), W)


@pytest.mark.parametrize("key, value", [("offset", "-1"), ("length", "ten"), ("location", "")])
def test_malformed_entries(tmp_path: Path, key: str, value: str) -> None:
    path = _save_external(tmp_path)
    m = onnx.load_model(str(path), load_external_data=False)
    for e in m.graph.initializer[0].external_data:
        if e.key == key:
            e.value = value
    path.write_bytes(m.SerializeToString())
    with pytest.raises(ExternalDataError):
        load_model(str(path), read_weights=False)


def test_link_swapped_after_loading_is_refused_on_read(tmp_path: Path) -> None:
    path = _save_external(tmp_path)
    model = load_model(str(path), read_weights=False)
    data = tmp_path / "w.bin"
    outside = tmp_path.parent / (tmp_path.name + "_outside.bin")
    data.rename(outside)
    os.symlink(outside, data)
    w = model.graph.tensors["w"].initial_value
    assert w is not None
    try:
        with pytest.raises(UnsafePathError, match="changed since loading"):
            w.read()
    finally:
        outside.unlink()
