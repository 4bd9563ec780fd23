"""Every bad input of the corpus fails with the specified error class and a one-line message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonnx.base.errors import InputError, SonnxError
from sonnx.loader import load_model
from tests.common.bad_models import CASES, Builder, rich_model_bytes

RICH = rich_model_bytes()


@pytest.mark.parametrize("case_id, builder, expected", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("read_weights", [True, False], ids=["weights", "structure"])
def test_bad_input(tmp_path: Path, case_id: str, builder: Builder, expected: type[SonnxError],
                   read_weights: bool) -> None:
    path = builder(tmp_path)
    with pytest.raises(SonnxError) as info:
        load_model(path, read_weights=read_weights)
    err = info.value
    assert type(err) is expected, f"{case_id}: {type(err).__name__}: {err}"
    assert isinstance(err, InputError)
    message = str(err)
    assert message and "\n" not in message and "\r" not in message
    assert err.one_line() == message
    assert Path(path).name in message  # the message names the file


def test_corpus_cases_are_distinct() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


def test_path_with_newline_gives_a_one_line_message(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_model(str(tmp_path / "a\nb.onnx"))
    assert "\n" not in str(info.value) and "no such file" in str(info.value)


def test_path_of_wrong_type() -> None:
    with pytest.raises(InputError, match=r"str or os\.PathLike"):
        load_model(42)  # type: ignore[arg-type]


def test_rich_model_loads(tmp_path: Path) -> None:
    path = tmp_path / "rich.onnx"
    path.write_bytes(RICH)
    model = load_model(str(path))
    assert [op.operator for op in model.graph.operations] == ["If", "LeakyRelu", "Abs", "Custom"]


mutation = st.tuples(st.integers(0, 3), st.integers(0, len(RICH) - 1), st.binary(min_size=1, max_size=4))


@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutated_model_fails_only_as_an_input_error(tmp_path_factory: pytest.TempPathFactory,
                                                    mutations: list[tuple[int, int, bytes]]) -> None:
    """Corrupted bytes either load or raise an InputError subclass with one line; nothing else escapes.

    Values that load are read back too: a reader may fail, but only with an InputError.
    """
    data = bytearray(RICH)
    for kind, pos, blob in mutations:
        pos = min(pos, len(data))
        if kind == 0:
            data[pos:pos + len(blob)] = blob
        elif kind == 1:
            del data[pos:pos + len(blob)]
        elif kind == 2:
            data[pos:pos] = blob
        else:
            del data[pos:]
    path = tmp_path_factory.mktemp("mut") / "m.onnx"
    path.write_bytes(bytes(data))
    try:
        model = load_model(str(path))
    except InputError as e:
        assert "\n" not in str(e)
        return
    for _, g in model.graph.nested():
        for t in g.tensors.values():
            if t.initial_value is not None:
                try:
                    t.initial_value.read()
                except InputError as e:
                    assert "\n" not in str(e)
