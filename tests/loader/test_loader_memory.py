"""A model read from no file (an ``onnx.ModelProto``, bytes, stdin) is read exactly as its file would be."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import onnx
import pytest

from sonnx.base.errors import ExternalDataError, InputError, SonnxError, UnsafePathError
from sonnx.loader import ModelBytes, load_model, load_model_and_derived, load_model_bytes
from sonnx.loader.derived import same_structure, same_values
from sonnx.loader.memory import IN_MEMORY, STDIN, model_bytes_of, read_stream
from tests.common.bad_models import CASES, Builder, _external, rich_model_bytes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _error(load: object) -> SonnxError:
    with pytest.raises(SonnxError) as caught:
        assert callable(load)
        load()
    return caught.value


def _stored(path: Path) -> list[tuple[str, str, tuple[int, ...], bytes]]:
    """Every initial value of the main graph as read: name, dtype, shape and bytes."""
    m = load_model(str(path))
    out = []
    for name, t in sorted(m.graph.tensors.items()):
        if t.initial_value is not None:
            a = np.asarray(t.initial_value.read())
            out.append((name, a.dtype.str, a.shape, a.tobytes()))
    return out


@pytest.mark.parametrize("name", ["cnn_block.onnx", "strict_dense.onnx", "if_branches_mismatch.onnx"])
def test_the_bytes_of_a_file_read_as_the_same_model_with_the_same_values(name: str) -> None:
    path = EXAMPLES / name
    from_file = load_model(str(path))
    from_bytes = load_model_bytes(ModelBytes(path.read_bytes()))[0]
    assert same_structure(from_file, from_bytes) and same_values(from_file, from_bytes)
    assert from_bytes.source == "" and from_bytes.weights_loaded
    assert dict(from_bytes.metadata) == dict(from_file.metadata)


def test_a_proto_is_serialized_once_and_read_through_the_same_decoder(tmp_path: Path) -> None:
    data = rich_model_bytes()
    path = tmp_path / "rich.onnx"
    path.write_bytes(data)
    proto = onnx.load_model_from_string(data)
    given = model_bytes_of(proto)
    assert given.data == proto.SerializeToString() and given.name == IN_MEMORY
    a, b = load_model(str(path)), load_model(given)
    assert same_structure(a, b) and same_values(a, b)
    assert model_bytes_of(data).data == data and model_bytes_of(bytearray(data)).data == data


def test_the_derived_types_are_those_of_the_same_bytes() -> None:
    path = EXAMPLES / "if_branches_mismatch.onnx"
    _, from_file = load_model_and_derived(str(path), derive=lambda m: True)
    _, from_bytes = load_model_and_derived(ModelBytes(path.read_bytes()), derive=lambda m: True)
    assert from_file is not None and from_bytes is not None
    assert from_file.model is not None and from_bytes.model is not None, (from_file.why, from_bytes.why)
    assert same_structure(from_file.model, from_bytes.model)
    assert load_model_and_derived(ModelBytes(path.read_bytes()), derive=lambda m: False)[1] is None


def _in_memory_case(builder: Builder, folder: Path) -> tuple[str, bytes] | None:
    """The path and bytes of a bad-input case that is a non-empty file, or None (a missing path, a directory)."""
    path = builder(folder)
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    return path, Path(path).read_bytes()


@pytest.mark.parametrize(("case", "builder", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_bytes_of_a_bad_file_are_refused_as_the_file_is(
    case: str, builder: Builder, expected: type[SonnxError], tmp_path: Path
) -> None:
    found = _in_memory_case(builder, tmp_path)
    if found is None:  # no bytes to give: the file is missing, empty or a directory
        assert expected is InputError
        return
    path, data = found
    on_file = _error(lambda: load_model(path))
    in_memory = _error(lambda: load_model_bytes(ModelBytes(data)))
    if "external" not in case:
        assert type(in_memory) is type(on_file) is expected
        assert in_memory.one_line() == on_file.one_line().replace(path, IN_MEMORY)
        return
    # a location unsafe by its form stays refused as unsafe; any other has no folder to be looked for in
    why = "no folder to find it in"
    assert isinstance(in_memory, ExternalDataError)
    assert type(in_memory) is (UnsafePathError if case in ("external_absolute_path", "external_dotdot_path")
                               else ExternalDataError)
    assert type(in_memory) is UnsafePathError or why in in_memory.one_line()


def test_external_data_is_refused_even_when_the_current_directory_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _external(tmp_path)
    assert load_model(str(path)).graph.tensors["w"].initial_value is not None  # the file's folder holds it
    monkeypatch.chdir(tmp_path)  # weights.bin is in the current directory too: it must not be read from there
    for read_weights in (True, False):
        err = _error(lambda rw=read_weights: load_model_bytes(ModelBytes(path.read_bytes()), read_weights=rw))
        assert type(err) is ExternalDataError
        assert err.one_line() == (
            f"{IN_MEMORY}: tensor 'w': its data is in the external file 'weights.bin', and a model given in memory "
            "or on stdin has no folder to find it in; check the model's file instead"
        )


def test_empty_bytes_and_a_foreign_object_are_refused() -> None:
    assert _error(lambda: ModelBytes(b"")).one_line() == f"{IN_MEMORY}: empty model (no bytes)"
    assert type(_error(lambda: model_bytes_of("model.onnx"))).__name__ == "UsageError"


def test_a_stream_is_read_to_its_end_within_the_limit() -> None:
    data = (EXAMPLES / "cnn_block.onnx").read_bytes()
    got = read_stream(io.BytesIO(data))
    assert got.data == data and got.name == STDIN and got.stem == "stdin"
    assert read_stream(io.BytesIO(data), limit=len(data)).data == data
    err = _error(lambda: read_stream(io.BytesIO(data), limit=len(data) - 1))
    assert type(err) is InputError and err.one_line().startswith(f"{STDIN}: more than {len(data) - 1} bytes")
    assert _error(lambda: read_stream(io.BytesIO(b""))).one_line() == f"{STDIN}: empty model (no bytes)"


def test_a_terminal_is_refused_before_anything_is_read() -> None:
    main_fd, other_fd = os.openpty()
    os.write(main_fd, b"\x04")  # end of input, so that a reader that does not refuse the terminal cannot wait
    try:
        with os.fdopen(other_fd, "rb", buffering=0, closefd=False) as tty:
            err = _error(lambda: read_stream(tty))  # type: ignore[arg-type]
        assert "standard input is a terminal" in err.one_line()
    finally:
        os.close(main_fd)
        os.close(other_fd)
